// What the tools accept as a text file: no NUL byte in its first 8 KB (the mark of a binary file);
// UTF-8, optionally behind a BOM, else Windows-1252 (Latin-1), which an edit writes back as it was. Edits load a whole file, remember its identity and bytes, and save
// it atomically (temp file in the same directory, then rename) with its BOM, mode, owner and group
// unchanged, refusing when the file vanished or changed in between, so a concurrent writer's work is
// not silently lost. A file without any write bit is read-only and never edited. Files are reached
// through a directory opened beneath the project (see paths.ts), never by a path looked up again.
import type { Stats } from "node:fs";
import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { TextDecoder } from "node:util";
import { writeFileAtomic } from "../fs/atomic-write.js";
import type { OpenDir } from "../fs/beneath.js";
import { formatSize } from "../format.js";
import { isMissing } from "./paths.js";
import { ToolError } from "./types.js";
import { decodeWindows1252, encodeWindows1252, WINDOWS_1252 } from "./windows-1252.js";

export const BINARY_SNIFF_BYTES = 8 * 1024;
/** search_replace holds the whole file in memory several times over (bytes, text, new text); beyond this it refuses. */
const MAX_EDIT_BYTES = 16 * 1024 * 1024;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const COMPARE_CHUNK_BYTES = 64 * 1024;

export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

function startsWithBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Throws a TypeError on invalid UTF-8; keeps a U+FEFF it meets, since only a file's first bytes are a BOM. */
export function strictUtf8Decoder(): TextDecoder {
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
}

/** Opening a FIFO for reading would wait for a writer; non-blocking, the caller's fstat sees what it is. */
export function openForReading(dir: OpenDir, name: string): Promise<FileHandle> {
  return dir.open(name, constants.O_RDONLY | constants.O_NONBLOCK);
}

export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

export function identityOf(st: Stats): FileIdentity {
  return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

export interface LoadedText {
  bom: boolean;
  /** The file was not valid UTF-8, so it was read, and is written back, as Windows-1252. */
  windows1252: boolean;
  /** The content after the BOM, line endings as they are on disk. */
  text: string;
  /** The file's bytes as loaded, to tell a rewrite of the same size within the same clock tick. */
  bytes: Buffer;
  mode: number;
  uid: number;
  gid: number;
  identity: FileIdentity;
}

/** The file's text, or null when it does not exist. `display` is the path as the model knows it. */
export async function loadTextFile(dir: OpenDir, name: string, display: string): Promise<LoadedText | null> {
  let fh;
  try {
    fh = await openForReading(dir, name);
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new ToolError(`${display} is a directory, not a file: give the path of a file in it (read_file ${JSON.stringify({ path: display })} lists it)`);
    if (!st.isFile()) throw new ToolError(`${display} is not a regular file (a device, socket or pipe): only text files can be edited`);
    if (isReadOnly(st)) throw readOnly(display, st);
    if (st.size > MAX_EDIT_BYTES) {
      throw new ToolError(`${display} is ${formatSize(st.size)}; search_replace edits files up to ${formatSize(MAX_EDIT_BYTES)}, so this one cannot be edited with it`);
    }
    const bytes = await fh.readFile();
    if (looksBinary(bytes)) throw new ToolError(`binary file: ${display} contains NUL bytes and cannot be edited as text`);
    const bom = startsWithBom(bytes);
    let text: string;
    let windows1252 = false;
    try {
      text = strictUtf8Decoder().decode(bom ? bytes.subarray(UTF8_BOM.length) : bytes);
    } catch {
      text = decodeWindows1252(bytes);
      windows1252 = true;
    }
    return { bom: bom && !windows1252, windows1252, text, bytes, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, identity: identityOf(st) };
  } finally {
    await fh.close();
  }
}

/** The file is no longer the one loaded: an edit may be made again on what it holds now. */
export class FileChangedError extends ToolError {
  override name = "FileChangedError";
}

/**
 * Replaces the file's content with `text` (BOM, mode, and owner and group where this process may set
 * them, as loaded), if the file is still the one loaded: checked once the new content is written and
 * synced, just before the rename. A write landing after that check is still lost; no lock binds other
 * writers. `beforeCheck` is a test seam: it runs just before that check.
 */
export async function saveTextFile(dir: OpenDir, name: string, display: string, loaded: LoadedText, text: string, beforeCheck?: () => Promise<unknown>): Promise<void> {
  const body = loaded.windows1252 ? windows1252Bytes(text, display) : Buffer.from(text, "utf8");
  try {
    await writeFileAtomic(dir.entry(name), loaded.bom ? [UTF8_BOM, body] : [body], {
      mode: loaded.mode,
      owner: { uid: loaded.uid, gid: loaded.gid },
      commit: async (rename) => {
        await beforeCheck?.();
        await dir.verify();
        await checkUnchanged(dir, name, display, loaded);
        await rename();
      },
    });
  } catch (e) {
    if (isMissing(e)) throw vanished(display);
    throw e;
  }
}

function windows1252Bytes(text: string, display: string): Buffer {
  const encoded = encodeWindows1252(text);
  if ("bytes" in encoded) return encoded.bytes;
  const code = encoded.unencodable.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  throw new ToolError(`${display} is ${WINDOWS_1252} (Latin-1) text, which cannot hold ${JSON.stringify(encoded.unencodable)} (U+${code}); nothing was written. Make the edit with characters that encoding has`);
}

async function checkUnchanged(dir: OpenDir, name: string, display: string, loaded: LoadedText): Promise<void> {
  const fh = await openForReading(dir, name);
  try {
    const st = await fh.stat();
    if (isReadOnly(st)) throw readOnly(display, st);
    const same = st.isFile() && (st.mode & 0o7777) === loaded.mode && sameIdentity(identityOf(st), loaded.identity) && (await holds(fh, loaded.bytes));
    if (!same) throw new FileChangedError(`${display} changed while it was being edited; nothing was written. Read it again and make the edit on its current content`);
  } finally {
    await fh.close();
  }
}

/** Whether the open file holds exactly `bytes`, compared a chunk at a time. */
async function holds(fh: FileHandle, bytes: Buffer): Promise<boolean> {
  const chunk = Buffer.allocUnsafe(Math.min(COMPARE_CHUNK_BYTES, Math.max(bytes.length, 1)));
  for (let at = 0; ; ) {
    const { bytesRead } = await fh.read(chunk, 0, chunk.length, at);
    if (bytesRead === 0) return at === bytes.length;
    if (at + bytesRead > bytes.length || !chunk.subarray(0, bytesRead).equals(bytes.subarray(at, at + bytesRead))) return false;
    at += bytesRead;
  }
}

/** No write bit for anyone: the file is meant to stay as it is, whoever runs hel (root included). */
function isReadOnly(st: Stats): boolean {
  return (st.mode & 0o222) === 0;
}

function readOnly(display: string, st: Stats): ToolError {
  return new ToolError(`${display} is read-only (mode ${(st.mode & 0o777).toString(8).padStart(4, "0")}: no write permission), so hel does not edit it; nothing was written. Report the change needed instead`);
}

function vanished(display: string): ToolError {
  return new ToolError(`${display} was deleted or moved while it was being edited; nothing was written. Check with read_file ${JSON.stringify({ path: display })} and make the edit again`);
}

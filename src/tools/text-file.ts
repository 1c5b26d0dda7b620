// What the tools accept as a text file: UTF-8, optionally behind a BOM, with no NUL byte in its first
// 8 KB (the mark of a binary file). Edits load a whole file, remember its identity, and save it
// atomically (temp file in the same directory, then rename) with its BOM and mode unchanged, refusing
// when the file vanished or changed in between, so a concurrent writer's work is never silently lost.
import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { TextDecoder } from "node:util";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { formatSize } from "./format.js";
import { isMissing } from "./paths.js";
import { ToolError } from "./types.js";

export const BINARY_SNIFF_BYTES = 8 * 1024;
/** search_replace holds the whole file in memory, twice; beyond this it refuses. */
export const MAX_EDIT_BYTES = 16 * 1024 * 1024;
export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

export function startsWithBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Throws a TypeError on invalid UTF-8; keeps a U+FEFF it meets, since only a file's first bytes are a BOM. */
export function strictUtf8Decoder(): TextDecoder {
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
}

/** Opening a FIFO for reading would wait for a writer; non-blocking, the caller's fstat sees what it is. */
export function openForReading(abs: string): Promise<FileHandle> {
  return open(abs, constants.O_RDONLY | constants.O_NONBLOCK);
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
  /** The content after the BOM, line endings as they are on disk. */
  text: string;
  mode: number;
  identity: FileIdentity;
}

/** The file's text, or null when it does not exist. `display` is the path as the model knows it. */
export async function loadTextFile(abs: string, display: string): Promise<LoadedText | null> {
  let fh;
  try {
    fh = await openForReading(abs);
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new ToolError(`${display} is a directory, not a file: give the path of a file in it (read_file ${JSON.stringify({ path: display })} lists it)`);
    if (!st.isFile()) throw new ToolError(`${display} is not a regular file (a device, socket or pipe): only text files can be edited`);
    if (st.size > MAX_EDIT_BYTES) {
      throw new ToolError(`${display} is ${formatSize(st.size)}; search_replace edits files up to ${formatSize(MAX_EDIT_BYTES)}, so this one cannot be edited with it`);
    }
    const bytes = await fh.readFile();
    if (looksBinary(bytes)) throw new ToolError(`binary file: ${display} contains NUL bytes and cannot be edited as text`);
    const bom = startsWithBom(bytes);
    let text: string;
    try {
      text = strictUtf8Decoder().decode(bom ? bytes.subarray(UTF8_BOM.length) : bytes);
    } catch {
      throw new ToolError(`${display} is not valid UTF-8 text, so it cannot be edited: search_replace edits UTF-8 files only`);
    }
    return { bom, text, mode: st.mode & 0o7777, identity: identityOf(st) };
  } finally {
    await fh.close();
  }
}

/** Replaces the file's content with `text` (BOM and mode as loaded), if the file is still the one loaded. */
export async function saveTextFile(abs: string, display: string, loaded: LoadedText, text: string): Promise<void> {
  const vanished = new ToolError(
    `${display} was deleted or moved while it was being edited; nothing was written. Check with read_file ${JSON.stringify({ path: display })} and make the edit again`,
  );
  let now: FileIdentity;
  try {
    now = identityOf(await stat(abs));
  } catch (e) {
    if (isMissing(e)) throw vanished;
    throw e;
  }
  if (!sameIdentity(now, loaded.identity)) {
    throw new ToolError(`${display} changed while it was being edited; nothing was written. Read it again and make the edit on its current content`);
  }
  const body = Buffer.from(text, "utf8");
  try {
    await writeFileAtomic(abs, loaded.bom ? Buffer.concat([UTF8_BOM, body]) : body, { mode: loaded.mode });
  } catch (e) {
    if (isMissing(e)) throw vanished;
    throw e;
  }
}

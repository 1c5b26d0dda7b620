// One session's snapshot.json on disk: save and load. A save replaces the file atomically, after
// any earlier save of the same file; a load only reads, and refuses anything it cannot resume
// faithfully (another schema version, another session's or another directory's file, a tool call
// without its result), with one line saying what is wrong and where. Listing (catalog.ts) looks at
// snapshots through the same checks, so `ls` shows the line resume would print.
import { isUtf8 } from "node:buffer";
import { constants, realpathSync } from "node:fs";
import { lstat, open, stat, type FileHandle } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { z } from "zod";
import { MessageSchema, type Message } from "../wire/messages.js";
import { storedMessage } from "../wire/stored-message.js";
import { findToolPairingError } from "../wire/tool-pairing.js";
import { writeFileAtomic, type WriteData } from "../fs/atomic-write.js";
import { ensureHelDir } from "../fs/hel-dir.js";
import { NotOwnDirError, ownDir } from "../fs/own-dir.js";
import { ByteWriter } from "../wire/byte-writer.js";
import { oneLine, SessionError, systemProblem } from "./errors.js";
import { withStoreLock, type Lease } from "./lease.js";
import { sessionPaths } from "./paths.js";
import { notWrittenByHel, signedByHel, signSnapshot } from "./signature.js";
import {
  encodeSnapshot,
  headerOfFirstLine,
  indexedShape,
  rememberChecksum,
  verifiedIndex,
  SCHEMA_VERSION,
  SCHEMA_VERSION_1,
  SnapshotHeaderSchema,
  SnapshotHeaderV1Schema,
  SnapshotSchema,
  splitSnapshot,
  type Snapshot,
  type SnapshotInput,
} from "./snapshot-format.js";

/**
 * Which snapshot.json a process last read or wrote (every save is a new file, renamed into place), or
 * null for none yet. A save given one replaces the file only while it is still that one: a process
 * never writes a conversation over a newer one that another process saved.
 */
export interface SnapshotIdentity {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

export interface SaveOptions {
  /**
   * The lease the caller holds. With one, the rename happens under the store lock and only while the
   * lease is still this process's (see lease.ts) and the file on disk is still `expected`.
   */
  lease?: Lease;
  /** What the caller last saw on disk; null: it expects no snapshot yet. */
  expected?: SnapshotIdentity | null;
  /** Test seam: the step that writes the bytes into the temporary file. */
  writeData?: WriteData;
}

const KEPT = "the conversation is kept in memory and saved after the next turn";

// Saves of one file are queued so a slower earlier save can never land after a later one.
const saving = new Map<string, Promise<unknown>>();
// One encoding buffer, reused by save after save: memory the process has not touched before is slow
// to fault in, so a fresh buffer per save costs more than the encoding (docs/measured.md). A save
// running while another holds the buffer allocates its own.
let spareBuffer: Buffer | null = null;

const lostLease = (id: string): SessionError => new SessionError(`session ${id} was not saved: its lease was lost, another hel process may be using it — start a new session to keep working`, 1);

/** Returns what is on disk now: the file this save wrote. */
export async function saveSnapshot(projectDir: string, snapshot: SnapshotInput, options: SaveOptions = {}): Promise<SnapshotIdentity | null> {
  const id = snapshot.session_id;
  const { lease } = options;
  if (lease?.lost) throw lostLease(id);
  // The header is validated whole; messages only the first time a save sees them, since a message
  // never changes once it is in the conversation. What gets written is the header's parsed output
  // (fixed key order, defaults filled) and the messages' cached JSON.
  const { messages, ...header } = snapshot;
  const parsedHeader = SnapshotHeaderSchema.safeParse(header);
  const invalid = parsedHeader.success ? firstInvalidMessage(messages) : null;
  if (!parsedHeader.success || invalid) {
    const issues = !parsedHeader.success ? describeIssues(parsedHeader.error, header) : describeIssues(invalid!.error, messages[invalid!.index], ["messages", invalid!.index]);
    throw new SessionError(`could not save session ${id}: the snapshot is invalid (${issues}) — this is a bug in hel; ${KEPT}`, 1);
  }
  const paths = sessionPaths(projectDir, id);
  if (!worksIn(parsedHeader.data.cwd, projectDir)) {
    throw new SessionError(`could not save session ${id}: its cwd ${parsedHeader.data.cwd} is not the project directory ${resolve(projectDir)} — this is a bug in hel`, 1);
  }
  const pairing = findToolPairingError(messages);
  if (pairing) {
    throw new SessionError(`could not save session ${id}: ${pairing} — this is a bug in hel; ${KEPT}`, 1);
  }
  const writer = new ByteWriter(spareBuffer ?? Buffer.allocUnsafe(256 * 1024));
  spareBuffer = null;
  const data = encodeSnapshot(parsedHeader.data, messages, writer);

  // Checked and renamed under the store lock, where leases are taken over: between the check and the
  // rename no other process can take the session and save.
  let written: SnapshotIdentity | null = null;
  const fenced = async (rename: () => Promise<void>): Promise<void> =>
    withStoreLock(projectDir, async () => {
      if (!(await lease!.holds())) {
        lease!.markLost("another process took the session over");
        throw lostLease(id);
      }
      if (options.expected !== undefined && !sameIdentity(await identityOf(paths.snapshot), options.expected)) {
        lease!.markLost("another process saved the session");
        throw new SessionError(`session ${id} was not saved: another hel process saved it since this one read it — resume it again to continue from there`, 1);
      }
      await rename();
      written = await identityOf(paths.snapshot);
    });
  const previous = saving.get(paths.snapshot) ?? Promise.resolve();
  const run = previous.then(async () => {
    try {
      await signSnapshot(projectDir, id, data);
      await ensureHelDir(projectDir);
      await ownDir(projectDir, paths.dir, true);
      await writeFileAtomic(paths.snapshot, data, { ...(options.writeData ? { writeData: options.writeData } : {}), ...(lease ? { commit: fenced } : {}) });
      if (!lease) written = await identityOf(paths.snapshot);
    } catch (e) {
      throw saveError(e, id, paths.dir);
    }
  });
  const settled = run.catch(() => undefined);
  saving.set(paths.snapshot, settled);
  try {
    await run;
  } finally {
    if (saving.get(paths.snapshot) === settled) saving.delete(paths.snapshot);
    // Grown while encoding, it is the larger one, with room for the next answer.
    keepSpare(writer.memory);
  }
  return written;
}

async function identityOf(file: string): Promise<SnapshotIdentity | null> {
  try {
    const s = await stat(file, { bigint: true });
    return { ino: s.ino, size: s.size, mtimeNs: s.mtimeNs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

const sameIdentity = (a: SnapshotIdentity | null, b: SnapshotIdentity | null): boolean => a === b || (a !== null && b !== null && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs);

function keepSpare(buffer: Buffer): void {
  if (!spareBuffer || spareBuffer.length < buffer.length) spareBuffer = buffer;
}

const SAVE_REASONS: Record<string, string> = {
  ENOSPC: "no space left on device — free some space",
  EDQUOT: "disk quota exceeded — free some space",
  EFBIG: "the file is larger than this system allows — raise the file size limit (ulimit -f)",
  ESHORTWRITE: "the disk accepted only part of the file — free some space",
  EROFS: "the file system is read-only — make it writable",
  EACCES: "permission denied — make .hel/ writable",
  EPERM: "permission denied — make .hel/ writable",
  EIO: "an I/O error occurred — check the disk",
};

function saveError(e: unknown, id: string, dir: string): SessionError {
  if (e instanceof SessionError) return e;
  if (e instanceof NotOwnDirError) return new SessionError(`could not save session ${id}: ${e.message}; ${KEPT}`, 1);
  const code = (e as NodeJS.ErrnoException).code ?? "";
  const reason = SAVE_REASONS[code] ?? `${oneLine((e as Error).message)} (${dir}) — check the disk and .hel/`;
  return new SessionError(`could not save session ${id}: ${reason}; ${KEPT}`, 1);
}

export interface LoadOptions {
  /**
   * Read a snapshot that this user's hel did not write here (signature.ts) too: for the user who
   * adopts it (`--resume <id> --trust`) or looks at it (`sessions show`). Without it such a one is refused.
   */
  unsigned?: boolean;
}

export interface LoadedSnapshot {
  snapshot: Snapshot;
  /** Which file was read: a later save checks that the file is still that one. */
  identity: SnapshotIdentity;
  /** Whether this user's hel wrote it for this session of this project. */
  signed: boolean;
}

/** Reads and checks a session's snapshot; never writes. Every refusal is a SessionError with exit 2. */
export async function loadSnapshot(projectDir: string, id: string, options: LoadOptions = {}): Promise<Snapshot> {
  return (await loadSnapshotFile(projectDir, id, options)).snapshot;
}

/** loadSnapshot, which file it read, and whether hel wrote it. */
export async function loadSnapshotFile(projectDir: string, id: string, options: LoadOptions = {}): Promise<LoadedSnapshot> {
  const paths = sessionPaths(projectDir, id);
  let read: SnapshotBytes;
  try {
    read = await readSnapshotBytes(projectDir, paths.dir, paths.snapshot);
  } catch (e) {
    throw await readError(e, id, paths.dir, paths.snapshot);
  }
  let snapshot: Snapshot;
  let signed: boolean;
  try {
    signed = await signedByHel(projectDir, id, read.bytes);
    // What is wrong with a file is said first, whoever wrote it: a damaged one is no use adopted either.
    snapshot = parseSnapshot(read.bytes, projectDir, id, paths.snapshot, signed);
    if (!signed && !options.unsigned) throw notWrittenByHel(id);
  } catch (e) {
    keepSpare(read.buffer);
    throw e;
  }
  // Messages kept as the bytes they were read as hold `read.bytes`, and so does anything written from
  // those bytes uncopied (wire/serialize.ts); the buffer returns to the store once nothing does.
  heldBuffers.register(read.bytes, read.buffer);
  return { snapshot, identity: read.identity, signed };
}

/**
 * Whether session `id` has a snapshot this user's hel wrote here; false when it has none, or one that
 * cannot be read. Reads the whole file, but only that one: for `hel -c`, which takes the newest.
 */
export async function writtenByHel(projectDir: string, id: string): Promise<boolean> {
  const paths = sessionPaths(projectDir, id);
  let read: SnapshotBytes;
  try {
    read = await readSnapshotBytes(projectDir, paths.dir, paths.snapshot);
  } catch {
    return false;
  }
  try {
    return await signedByHel(projectDir, id, read.bytes);
  } finally {
    keepSpare(read.buffer);
  }
}

const heldBuffers = new FinalizationRegistry<Buffer>(keepSpare);

interface SnapshotBytes {
  /** The file's bytes: a view of `buffer`. */
  bytes: Buffer;
  /** Given back to the store (keepSpare) once nothing holds `bytes`: the next read or save uses it. */
  buffer: Buffer;
  identity: SnapshotIdentity;
}

// The file is read into the store's one buffer, the one saves encode into: memory a process touches
// for the first time is slow to fault in. A loaded session's messages then stay in it as bytes (see
// wire/stored-message.ts) until they are gone.
async function readSnapshotBytes(projectDir: string, dir: string, file: string): Promise<SnapshotBytes> {
  // Every folder on the way is a real one: a link there could lead the read out of the project.
  await ownDir(projectDir, dir, false);
  const handle = await openRegularFile(file);
  try {
    const info = await handle.stat({ bigint: true });
    const size = Number(info.size);
    let buffer: Buffer;
    if (spareBuffer && spareBuffer.length > size) {
      buffer = spareBuffer;
      spareBuffer = null;
    } else {
      // Room for the next answer, so the first save need not grow it.
      buffer = Buffer.allocUnsafe(size + (size >> 3) + 1);
    }
    let length = 0;
    for (;;) {
      if (length === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length >> 1 || 1024)]);
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return { bytes: buffer.subarray(0, length), buffer, identity: { ino: info.ino, size: info.size, mtimeNs: info.mtimeNs } };
  } finally {
    await handle.close();
  }
}

/**
 * Opens a file for reading without ever waiting on it: a FIFO in a snapshot's place would block
 * open() until some process wrote to it, and a device would never end. Anything but a regular file
 * is refused with the code ENOTREG; a symlink, which could lead out of the project, with ELOOP.
 */
async function openRegularFile(file: string): Promise<FileHandle> {
  // O_NONBLOCK changes nothing for a regular file; for a FIFO it makes open() return at once.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  const info = await handle.stat().catch(async (e: unknown) => {
    await handle.close();
    throw e;
  });
  if (info.isFile()) return handle;
  await handle.close();
  throw Object.assign(new Error(`${file} is not a regular file`), { code: "ENOTREG" });
}

async function readError(e: unknown, id: string, dir: string, file: string): Promise<SessionError> {
  if (e instanceof NotOwnDirError) return new SessionError(`session ${id}: ${e.message}`, 2);
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "ENOTREG") {
    return new SessionError(`session ${id}: snapshot.json is not a regular file (${file}) — delete the session with \`hel sessions rm ${id}\``, 2);
  }
  if (code === "ELOOP") {
    return new SessionError(`session ${id}: snapshot.json is a symbolic link (${file}), which hel does not follow — delete the session with \`hel sessions rm ${id}\``, 2);
  }
  if (code === "ENOENT") {
    const dirExists = await stat(dir).then(
      () => true,
      () => false,
    );
    return dirExists
      ? new SessionError(`session ${id} has no saved snapshot (${file}) — it never finished an answer; \`hel sessions rm ${id}\` deletes it`, 2)
      : new SessionError(`no session ${id} in this project — \`hel sessions ls\` lists them`, 2);
  }
  return new SessionError(`could not read session ${id}: ${systemProblem(e)} — check the permissions of ${file}`, 1);
}

/**
 * The checks of loadSnapshot, on bytes already read. The layout hel writes is read a message at a
 * time; any other layout (a file edited by hand) whole.
 */
function parseSnapshot(bytes: Buffer, projectDir: string, id: string, file: string, signed: boolean, layout = splitSnapshot(bytes)): Snapshot {
  const broken = (what: string): SessionError => new SessionError(`session ${id}: ${what} (${file}) — fix the file or delete the session with \`hel sessions rm ${id}\``, 2);
  const { header, messages: wholeMessages } = layout ? { header: layout.header, messages: undefined } : parseWhole(bytes, broken);
  const version = header.schema_version;
  if (version === undefined) throw broken("snapshot.json has no schema_version, so it is not a hel snapshot");
  if (version !== SCHEMA_VERSION && version !== SCHEMA_VERSION_1) {
    throw new SessionError(
      `session ${id} was written by another hel version (schema_version ${JSON.stringify(version)}; this hel reads ${SCHEMA_VERSION_1} and ${SCHEMA_VERSION}) — resume it with that version, or start a new session`,
      2,
    );
  }
  // The header and each message are checked apart, as saveSnapshot checks them; the messages are
  // remembered as valid, so the first save after a resume does not check them again.
  const parsedHeader = (version === SCHEMA_VERSION_1 ? SnapshotHeaderV1Schema : SnapshotHeaderSchema).safeParse(header);
  if (!parsedHeader.success) throw broken(`snapshot.json ${describeIssues(parsedHeader.error, header)}`);
  if (!layout && !Array.isArray(wholeMessages)) {
    const whole = (version === SCHEMA_VERSION_1 ? SnapshotHeaderV1Schema : SnapshotSchema).safeParse({ ...header, messages: wholeMessages });
    throw broken(`snapshot.json ${whole.success ? "has an invalid messages (expected an array)" : describeIssues(whole.error, { ...header, messages: wholeMessages })}`);
  }
  const count = layout ? layout.messages.length / 2 : (wholeMessages as unknown[]).length;
  // A file as hel wrote it (signed, and its index's checksum matches) holds messages that were checked
  // when they were saved: they are kept as their bytes without being parsed again. Any other file's
  // index may say anything, so its messages are each parsed and checked.
  const index = signed && layout ? verifiedIndex(layout, bytes) : null;
  // Bytes that are not UTF-8 decode with replacement characters; such a file's messages are rebuilt
  // from what they decode to rather than kept as bytes no request may carry.
  const keepBytes = layout !== null && (index !== null || isUtf8(bytes));
  const checked: Message[] = new Array<Message>(count);
  for (let i = 0; i < count && index && layout; i++) {
    const message = storedMessage(bytes, layout.messages[2 * i]!, layout.messages[2 * i + 1]!, indexedShape(index.entries[i]!));
    validMessages.add(message);
    checked[i] = message;
  }
  if (index) rememberChecksum(checked, index.crc32);
  for (let i = 0; i < count && !index; i++) {
    let raw: unknown;
    if (layout) {
      try {
        raw = JSON.parse(bytes.toString("utf8", layout.messages[2 * i], layout.messages[2 * i + 1]));
      } catch {
        // Not a message per line after all: read whole, which also names where the JSON goes wrong.
        return parseSnapshot(bytes, projectDir, id, file, signed, null);
      }
    } else {
      raw = (wholeMessages as unknown[])[i];
    }
    const result = MessageSchema.safeParse(raw);
    if (!result.success) throw broken(`snapshot.json ${describeIssues(result.error, raw, ["messages", i])}`);
    // A key the schema drops would still be in the bytes: such a message is kept as checked, not as read.
    const message = keepBytes && sameKeys(raw, result.data) ? storedMessage(bytes, layout.messages[2 * i]!, layout.messages[2 * i + 1]!, result.data) : result.data;
    validMessages.add(message);
    checked[i] = message;
  }
  const snapshot: Snapshot = { ...parsedHeader.data, messages: checked };
  if (snapshot.session_id !== id) {
    throw broken(`snapshot.json belongs to session ${snapshot.session_id}, not to the directory it is in`);
  }
  if (!worksIn(snapshot.cwd, projectDir)) {
    throw new SessionError(`session ${id} belongs to ${snapshot.cwd} — run hel from there or with -C ${snapshot.cwd}`, 2);
  }
  const pairing = findToolPairingError(snapshot.messages);
  if (pairing) throw broken(`cannot be resumed: ${pairing}`);
  return snapshot;
}

/** The snapshot parsed as one JSON text: its header, and its messages as found (not yet checked). */
function parseWhole(bytes: Buffer, broken: (what: string) => SessionError): { header: Record<string, unknown>; messages: unknown } {
  let text = bytes.toString("utf8");
  // An editor may add a byte order mark; it is not part of the JSON.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw broken(`snapshot.json is not valid JSON (${oneLine((e as Error).message)})`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw broken("snapshot.json is not a JSON object");
  }
  const { messages, ...header } = raw as Record<string, unknown>;
  return { header, messages };
}

/** Whether a session working in `cwd` is the project's: it is the project, or one of hel's worktrees of it (`hel -w`). */
function worksIn(cwd: string, projectDir: string): boolean {
  return sameDirectory(cwd, projectDir) || (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(basename(cwd)) && sameDirectory(dirname(cwd), join(projectDir, ".hel", "worktrees")));
}

function sameDirectory(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  // The same directory reached through a symlink (macOS /tmp → /private/tmp) is still the same project.
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

// Messages a save or load has already checked: a message never changes once it is in the
// conversation, so each is checked once.
const validMessages = new WeakSet<object>();

function firstInvalidMessage(messages: readonly unknown[]): { index: number; error: z.ZodError } | null {
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (typeof message === "object" && message !== null && validMessages.has(message)) continue;
    const result = MessageSchema.safeParse(message);
    if (!result.success) return { index, error: result.error };
    validMessages.add(message as object);
  }
  return null;
}

/**
 * Names the first few schema violations by their path in the file, e.g. "is missing messages[3].content".
 * `input` is the value the error is about; `at` is where that value sits in the snapshot.
 */
function describeIssues(error: z.ZodError, input: unknown, at: readonly PropertyKey[] = []): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    const where = formatPath([...at, ...issue.path]);
    if (valueAt(input, issue.path) === undefined) return `is missing ${where}`;
    return `has an invalid ${where} (${oneLine(issue.message)})`;
  });
  const more = error.issues.length > 3 ? `, and ${error.issues.length - 3} more problems` : "";
  return parts.join("; ") + more;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "top level";
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const p of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** Whether the schema's output kept every key of the raw message, nested tool calls included. */
function sameKeys(raw: unknown, message: Message): boolean {
  const keys = (v: unknown): number => Object.keys(v as object).length;
  if (keys(raw) !== keys(message)) return false;
  if (message.role !== "assistant" || !message.tool_calls) return true;
  const calls = (raw as { tool_calls: { function: unknown }[] }).tool_calls;
  return message.tool_calls.every((c, i) => keys(calls[i]) === keys(c) && keys(calls[i]!.function) === keys(c.function));
}

/** What a look at a snapshot found (see lookAtSnapshot). */
export type SnapshotLook<T> = { /** Whether this user's hel wrote it here (signature.ts). */ signed: boolean } & (
  | { ok: true; value: T }
  | {
      ok: false;
      /** Why the session cannot be resumed: the line loadSnapshot would throw. */
      error: string;
      /** When a snapshot that cannot be loaded still says it was written; null when it cannot say. */
      updatedAt: string | null;
      /** The file's mtime, or its directory's when the file cannot be read (0 when neither can). */
      mtimeMs: number;
    }
);

/**
 * Reads and checks a session's snapshot as loadSnapshot does, for a look rather than a resume (`hel
 * sessions ls`): returns what `look` makes of it, or why it cannot be loaded. Nothing `look` is
 * given may outlive it: the bytes its messages are kept as are reused as soon as it returns.
 */
export async function lookAtSnapshot<T>(projectDir: string, id: string, look: (snapshot: Snapshot) => T): Promise<SnapshotLook<T>> {
  const paths = sessionPaths(projectDir, id);
  let read: SnapshotBytes;
  try {
    read = await readSnapshotBytes(projectDir, paths.dir, paths.snapshot);
  } catch (e) {
    const error = (await readError(e, id, paths.dir, paths.snapshot)).message;
    return {
      ok: false,
      signed: false,
      error,
      updatedAt: null,
      mtimeMs: await lstat(paths.dir).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    };
  }
  const mtimeMs = Number(read.identity.mtimeNs / 1_000_000n);
  let signed = false;
  try {
    signed = await signedByHel(projectDir, id, read.bytes);
    return { ok: true, signed, value: look(parseSnapshot(read.bytes, projectDir, id, paths.snapshot, signed)) };
  } catch (e) {
    return { ok: false, signed, error: (e as Error).message, updatedAt: rawUpdatedAt(read.bytes), mtimeMs };
  } finally {
    keepSpare(read.buffer);
  }
}

/**
 * When a saved snapshot says it was written, read from its first line alone (the header, as
 * encodeSnapshot writes it) rather than a load; null when that line cannot say. Throws when the
 * file cannot be read.
 */
export async function updatedAtOnFirstLine(projectDir: string, id: string): Promise<string | null> {
  const paths = sessionPaths(projectDir, id);
  await ownDir(projectDir, paths.dir, false);
  return updatedAtOf(headerOfFirstLine(await firstLine(paths.snapshot)));
}

/** A raw header's updated_at, when it is a date. */
function updatedAtOf(header: Record<string, unknown> | null): string | null {
  const v = header?.updated_at;
  return typeof v === "string" && !Number.isNaN(Date.parse(v)) ? v : null;
}

/** When a broken snapshot says it was written: from its first line as hel writes it, else from the whole file. */
function rawUpdatedAt(bytes: Buffer): string | null {
  const text = bytes.toString("utf8");
  const end = text.indexOf("\n");
  const fromHead = updatedAtOf(headerOfFirstLine(end === -1 ? text : text.slice(0, end)));
  if (fromHead !== null) return fromHead;
  try {
    const whole: unknown = JSON.parse(text.replace(/^\ufeff/, ""));
    return typeof whole === "object" && whole !== null ? updatedAtOf(whole as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A file's first line, without its line break, read no further than it ends. */
async function firstLine(file: string): Promise<string> {
  const handle = await openRegularFile(file);
  try {
    const parts: Buffer[] = [];
    for (let at = 0; ; ) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, at);
      const end = chunk.subarray(0, bytesRead).indexOf(0x0a);
      parts.push(chunk.subarray(0, end === -1 ? bytesRead : end));
      at += bytesRead;
      if (bytesRead === 0 || end !== -1) break;
    }
    return Buffer.concat(parts).toString("utf8");
  } finally {
    await handle.close();
  }
}

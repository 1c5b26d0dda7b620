// The session store: save, load, find, list and delete the sessions of one project. A snapshot is
// replaced atomically after each answer; loading only reads and refuses anything it cannot resume
// faithfully (another schema version, another session's or another directory's file, a tool call
// without its result), with one line saying what is wrong and where. Deleting touches nothing but
// the one session directory, and only while no process holds its lease.
import { isUtf8 } from "node:buffer";
import { realpathSync } from "node:fs";
import { mkdir, open, readdir, rm, stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { z } from "zod";
import { MessageSchema, type Message } from "../wire/messages.js";
import { storedMessage } from "../wire/stored-message.js";
import { findToolPairingError } from "../wire/tool-pairing.js";
import { writeFileAtomic, type WriteData } from "../fs/atomic-write.js";
import { ByteWriter } from "../wire/byte-writer.js";
import { oneLine, SessionError } from "./errors.js";
import { acquireLease, isLeased, withStoreLock, type Lease } from "./lease.js";
import { ensureHelDir, isValidSessionId, sessionPaths, sessionsDir } from "./paths.js";
import { encodeSnapshot, headerOfFirstLine, SCHEMA_VERSION, SnapshotHeaderSchema, SnapshotSchema, splitSnapshot, type Snapshot, type SnapshotInput } from "./snapshot.js";

export interface SaveOptions {
  /** The lease the caller holds; a lost lease means another process may own the session now. */
  lease?: Lease;
  /** Test seam: the step that writes the bytes into the temporary file. */
  writeData?: WriteData;
}

const KEPT = "the conversation is kept in memory and saved after the next answer";

// Saves of one file are queued so a slower earlier save can never land after a later one.
const saving = new Map<string, Promise<unknown>>();
// One encoding buffer, reused by save after save. Memory the process has not touched before is
// slow to fault in (about 3 ms per MB on a small VM), which made a fresh 10 MB buffer the largest
// single cost of a save. A save running while another holds the buffer allocates its own.
let spareBuffer: Buffer | null = null;

export async function saveSnapshot(projectDir: string, snapshot: SnapshotInput, options: SaveOptions = {}): Promise<void> {
  const id = snapshot.session_id;
  if (options.lease?.lost) {
    throw new SessionError(`session ${id} was not saved: its lease was lost, another hel process may be using it — start a new session to keep working`, 1);
  }
  // The header is validated whole; messages only the first time a save sees them, since a message
  // never changes once it is in the conversation. What gets written is the header's parsed output
  // (fixed key order, defaults filled) and the messages' cached JSON.
  const { messages, ...header } = snapshot;
  const parsedHeader = SnapshotHeaderSchema.safeParse(header);
  const invalid = parsedHeader.success ? firstInvalidMessage(messages) : null;
  if (!parsedHeader.success || invalid) {
    const issues = !parsedHeader.success
      ? describeIssues(parsedHeader.error, header)
      : describeIssues(invalid!.error, messages[invalid!.index], ["messages", invalid!.index]);
    throw new SessionError(`could not save session ${id}: the snapshot is invalid (${issues}) — this is a bug in hel; ${KEPT}`, 1);
  }
  const paths = sessionPaths(projectDir, id);
  if (!sameDirectory(parsedHeader.data.cwd, projectDir)) {
    throw new SessionError(`could not save session ${id}: its cwd ${parsedHeader.data.cwd} is not the project directory ${resolve(projectDir)} — this is a bug in hel`, 1);
  }
  const pairing = findToolPairingError(messages);
  if (pairing) {
    throw new SessionError(`could not save session ${id}: ${pairing} — this is a bug in hel; ${KEPT}`, 1);
  }
  const writer = new ByteWriter(spareBuffer ?? Buffer.allocUnsafe(256 * 1024));
  spareBuffer = null;
  const data = encodeSnapshot(parsedHeader.data, messages, writer);

  const previous = saving.get(paths.snapshot) ?? Promise.resolve();
  const run = previous.then(async () => {
    try {
      await ensureHelDir(projectDir);
      await mkdir(paths.dir, { recursive: true });
      await writeFileAtomic(paths.snapshot, data, options.writeData ? { writeData: options.writeData } : {});
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
}

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
  const code = (e as NodeJS.ErrnoException).code ?? "";
  const reason = SAVE_REASONS[code] ?? `${oneLine((e as Error).message)} (${dir}) — check the disk and .hel/`;
  return new SessionError(`could not save session ${id}: ${reason}; ${KEPT}`, 1);
}

/** Reads and checks a session's snapshot; never writes. Every refusal is a SessionError with exit 2. */
export async function loadSnapshot(projectDir: string, id: string): Promise<Snapshot> {
  const paths = sessionPaths(projectDir, id);
  let read: SnapshotBytes;
  try {
    read = await readSnapshotBytes(paths.snapshot);
  } catch (e) {
    throw await readError(e, id, paths.dir, paths.snapshot);
  }
  let snapshot: Snapshot;
  try {
    snapshot = parseSnapshot(read.bytes, projectDir, id, paths.snapshot);
  } catch (e) {
    keepSpare(read.buffer);
    throw e;
  }
  // Messages kept as the bytes they were read as hold `read.bytes`, and so does anything written from
  // those bytes uncopied (wire/serialize.ts); the buffer returns to the store once nothing does.
  heldBuffers.register(read.bytes, read.buffer);
  return snapshot;
}

const heldBuffers = new FinalizationRegistry<Buffer>(keepSpare);

interface SnapshotBytes {
  /** The file's bytes: a view of `buffer`. */
  bytes: Buffer;
  /** Given back to the store (keepSpare) once nothing holds `bytes`: the next read or save uses it. */
  buffer: Buffer;
}

// The file is read into the store's one buffer, the one saves encode into: memory a process touches
// for the first time is slow to fault in. A loaded session's messages then stay in it as bytes (see
// wire/stored-message.ts) until they are gone.
async function readSnapshotBytes(file: string): Promise<SnapshotBytes> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
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
    return { bytes: buffer.subarray(0, length), buffer };
  } finally {
    await handle.close();
  }
}

async function readError(e: unknown, id: string, dir: string, file: string): Promise<SessionError> {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "ENOENT") {
    const dirExists = await stat(dir).then(
      () => true,
      () => false,
    );
    return dirExists
      ? new SessionError(`session ${id} has no saved snapshot (${file}) — it never finished an answer; \`hel sessions rm ${id}\` deletes it`, 2)
      : new SessionError(`no session ${id} in this project — \`hel sessions ls\` lists them`, 2);
  }
  return new SessionError(`could not read session ${id}: ${oneLine((e as Error).message)} — check the permissions of ${file}`, 1);
}

/**
 * The checks of loadSnapshot, on bytes already read. The layout hel writes is read a message at a
 * time; any other layout (a file edited by hand) whole.
 */
function parseSnapshot(bytes: Buffer, projectDir: string, id: string, file: string, layout = splitSnapshot(bytes)): Snapshot {
  const broken = (what: string): SessionError =>
    new SessionError(`session ${id}: ${what} (${file}) — fix the file or delete the session with \`hel sessions rm ${id}\``, 2);
  const { header, messages: wholeMessages } = layout ? { header: layout.header, messages: undefined } : parseWhole(bytes, broken);
  const version = header.schema_version;
  if (version === undefined) throw broken("snapshot.json has no schema_version, so it is not a hel snapshot");
  if (version !== SCHEMA_VERSION) {
    throw new SessionError(
      `session ${id} was written by another hel version (schema_version ${JSON.stringify(version)}; this hel reads ${SCHEMA_VERSION}) — resume it with that version, or start a new session`,
      2,
    );
  }
  // The header and each message are checked apart, as saveSnapshot checks them; the messages are
  // remembered as valid, so the first save after a resume does not check them again.
  const parsedHeader = SnapshotHeaderSchema.safeParse(header);
  if (!parsedHeader.success) throw broken(`snapshot.json ${describeIssues(parsedHeader.error, header)}`);
  if (!layout && !Array.isArray(wholeMessages)) {
    const whole = SnapshotSchema.safeParse({ ...header, messages: wholeMessages });
    throw broken(`snapshot.json ${whole.success ? "has an invalid messages (expected an array)" : describeIssues(whole.error, { ...header, messages: wholeMessages })}`);
  }
  const count = layout ? layout.messages.length / 2 : (wholeMessages as unknown[]).length;
  // Bytes that are not UTF-8 decode with replacement characters; such a file's messages are rebuilt
  // from what they decode to rather than kept as bytes no request may carry.
  const keepBytes = layout !== null && isUtf8(bytes);
  const checked: Message[] = new Array<Message>(count);
  for (let i = 0; i < count; i++) {
    let raw: unknown;
    if (layout) {
      try {
        raw = JSON.parse(bytes.toString("utf8", layout.messages[2 * i], layout.messages[2 * i + 1]));
      } catch {
        // Not a message per line after all: read whole, which also names where the JSON goes wrong.
        return parseSnapshot(bytes, projectDir, id, file, null);
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
  if (!sameDirectory(snapshot.cwd, projectDir)) {
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

/** The ids of the session directories of this project, unsorted; none when .hel does not exist. */
async function sessionIds(projectDir: string): Promise<string[]> {
  try {
    const entries = await readdir(sessionsDir(projectDir), { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && isValidSessionId(e.name)).map((e) => e.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new SessionError(`could not list sessions: ${oneLine((e as Error).message)} — check the permissions of ${sessionsDir(projectDir)}`, 1);
  }
}

/** A full id or a unique prefix of one, as typed by a person. */
export async function resolveSessionId(projectDir: string, idOrPrefix: string): Promise<string> {
  const wanted = idOrPrefix.trim();
  const ids = await sessionIds(projectDir);
  if (wanted && ids.includes(wanted)) return wanted;
  const matches = wanted ? ids.filter((id) => id.startsWith(wanted)).sort() : [];
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new SessionError(`no session ${idOrPrefix} in this project — \`hel sessions ls\` lists them`, 2);
  const shown = matches.slice(0, 5).join(", ") + (matches.length > 5 ? `, and ${matches.length - 5} more` : "");
  throw new SessionError(`session id ${idOrPrefix} is ambiguous: it matches ${shown} — type more of the id`, 2);
}

export interface SessionSummary {
  id: string;
  /** null when the snapshot is missing or unreadable. */
  updated_at: string | null;
  /** User messages: the instructions given so far. */
  turns: number | null;
  first_instruction: string | null;
  /** usage.prompt_tokens + usage.completion_tokens, over the whole session. */
  tokens: number | null;
  model: string | null;
  in_use: boolean;
  /** Why this session cannot be resumed (the same line resume would print), or null. */
  error: string | null;
}

interface ListedSession extends SessionSummary {
  /** Ordering key: updated_at, or the file's mtime when the snapshot cannot say. */
  sortTime: number;
}

async function summarize(projectDir: string, id: string): Promise<ListedSession> {
  const paths = sessionPaths(projectDir, id);
  const in_use = await isLeased(projectDir, id).catch(() => false);
  const summary: ListedSession = {
    id,
    updated_at: null,
    turns: null,
    first_instruction: null,
    tokens: null,
    model: null,
    in_use,
    error: null,
    sortTime: 0,
  };
  let read: SnapshotBytes;
  try {
    summary.sortTime = (await stat(paths.snapshot)).mtimeMs;
    read = await readSnapshotBytes(paths.snapshot);
  } catch (e) {
    summary.error = (await readError(e, id, paths.dir, paths.snapshot)).message;
    summary.sortTime = await stat(paths.dir).then((s) => s.mtimeMs, () => 0);
    return summary;
  }
  try {
    const s = parseSnapshot(read.bytes, projectDir, id, paths.snapshot);
    const users = s.messages.filter((m) => m.role === "user");
    summary.updated_at = s.updated_at;
    summary.turns = users.length;
    summary.first_instruction = users[0]?.content ?? null;
    summary.tokens = s.usage.prompt_tokens + s.usage.completion_tokens;
    summary.model = s.request_config.model;
    summary.sortTime = Date.parse(s.updated_at);
  } catch (e) {
    summary.error = (e as Error).message;
    // A broken snapshot may still say when it was written; that keeps `ls` and `-c` in a sensible order.
    const updated = rawUpdatedAt(read.bytes);
    if (updated !== null) {
      summary.updated_at = updated;
      summary.sortTime = Date.parse(updated);
    }
  } finally {
    // Nothing read from the bytes outlives this function (the first instruction is already a copy).
    keepSpare(read.buffer);
  }
  return summary;
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

/** This project's sessions, newest first; broken ones carry an error note instead of failing the list. */
export async function listSessions(projectDir: string): Promise<SessionSummary[]> {
  const out: ListedSession[] = [];
  // One at a time: snapshots can be tens of megabytes, and reading them all at once would hold them all.
  for (const id of await sessionIds(projectDir)) out.push(await summarize(projectDir, id));
  out.sort((a, b) => b.sortTime - a.sortTime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return out.map(({ sortTime: _, ...summary }) => summary);
}

/**
 * The most recently updated session, for `hel -c`; null when there is none. In the order `hel
 * sessions ls` shows, but from each snapshot's first line (its header, with updated_at) rather than
 * a load of every session: choosing must not cost as much as resuming them all. A newest session
 * whose snapshot is broken is still chosen, so resuming it fails loudly instead of silently
 * continuing an older one. Sessions never saved (no readable snapshot.json) are not candidates.
 */
export async function latestSessionId(projectDir: string): Promise<string | null> {
  let latest: { id: string; time: number } | null = null;
  for (const id of await sessionIds(projectDir)) {
    const time = await lastWritten(projectDir, id);
    if (time !== null && (!latest || time > latest.time || (time === latest.time && id < latest.id))) latest = { id, time };
  }
  return latest?.id ?? null;
}

/** A saved session's place in the `ls` order (see summarize), or null when it has no readable snapshot. */
async function lastWritten(projectDir: string, id: string): Promise<number | null> {
  let line: string;
  try {
    line = await firstLine(sessionPaths(projectDir, id).snapshot);
  } catch {
    return null;
  }
  const updated = updatedAtOf(headerOfFirstLine(line));
  // Another layout, or a header that cannot say: the whole summary decides, as for `ls`.
  return updated !== null ? Date.parse(updated) : (await summarize(projectDir, id)).sortTime;
}

/** A file's first line, without its line break, read no further than it ends. */
async function firstLine(file: string): Promise<string> {
  const handle = await open(file, "r");
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

/**
 * Deletes whole sessions: snapshot, spill, children and lease. All ids are resolved and leased first,
 * so either every named session is removed or, when one is unknown or in use, none is.
 * Returns the full ids removed.
 */
export async function removeSessions(projectDir: string, idsOrPrefixes: readonly string[]): Promise<string[]> {
  return withStoreLock(projectDir, async () => {
    const ids: string[] = [];
    for (const x of idsOrPrefixes) {
      const id = await resolveSessionId(projectDir, x);
      if (!ids.includes(id)) ids.push(id);
    }
    const leases: Lease[] = [];
    try {
      // Holding the lease, not just checking it, closes the gap in which a new process could start using it.
      for (const id of ids) leases.push(await acquireLease(projectDir, id));
      for (const id of ids) {
        // rm does not follow symlinks: a link inside spill/ is removed, never what it points to.
        await rm(sessionPaths(projectDir, id).dir, { recursive: true, force: true });
      }
    } catch (e) {
      if (e instanceof SessionError) throw e;
      throw new SessionError(`could not delete session: ${oneLine((e as Error).message)} — check the permissions of ${sessionsDir(projectDir)}`, 1);
    } finally {
      for (const lease of leases) await lease.release();
    }
    return ids;
  });
}

import { isUtf8 } from "node:buffer";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { SessionError } from "../../src/session/errors.js";
import { acquireLease, withStoreLock } from "../../src/session/lease.js";
import { ensureHelDir, helDir } from "../../src/fs/hel-dir.js";
import { newSessionId, sessionPaths } from "../../src/session/paths.js";
import { ByteWriter } from "../../src/wire/byte-writer.js";
import { storedJson } from "../../src/wire/stored-message.js";
import { encodeSnapshot, SnapshotSchema, splitSnapshot, type Snapshot } from "../../src/session/snapshot-format.js";
import { latestSessionId, listSessions, removeSessions, resolveSessionId } from "../../src/session/catalog.js";
import { loadSnapshot, saveSnapshot } from "../../src/session/snapshot-file.js";
import { findToolPairingError } from "../../src/wire/tool-pairing.js";
import { crc32 } from "node:zlib";
import { compiledSrc } from "../helpers/compiled-src.js";
import { ID_A, ID_B, ID_C, makeSnapshot, sessionError } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";

let project: string;
beforeEach(async () => {
  project = await tempProject();
});

const snapshotFile = (id: string): string => sessionPaths(project, id).snapshot;

/** A fixture session saved as ID_A, and the text of its snapshot.json. */
/** The file's JSON without the messages' index and the MAC, which the header carries next to the snapshot's fields. */
function withoutIndex(text: string): string {
  const { messages_index: _, mac: __, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return JSON.stringify(rest);
}

/** A file changed by hand is no longer signed: it loads only as a session the user adopts. */
const adopted = { unsigned: true };
const UNSIGNED_MAC = `"mac":"${"0".repeat(64)}"`;

async function savedSnapshot(): Promise<{ snapshot: Snapshot; text: string }> {
  const snapshot = makeSnapshot(project, ID_A);
  await saveSnapshot(project, snapshot);
  return { snapshot, text: readFileSync(snapshotFile(ID_A), "utf8") };
}

/** splitSnapshot's layout with each message's JSON parsed, to compare with what was saved. */
function layoutOf(bytes: Buffer): { header: Record<string, unknown>; messages: unknown[] } | null {
  const layout = splitSnapshot(bytes);
  if (!layout) return null;
  const messages: unknown[] = [];
  for (let i = 0; i < layout.messages.length; i += 2) messages.push(JSON.parse(bytes.toString("utf8", layout.messages[i], layout.messages[i + 1])));
  return { header: layout.header, messages };
}

describe("paths", () => {
  it("lay out .hel/sessions/<id>/ as the design's Files section says", () => {
    const dir = join(project, ".hel/sessions", ID_A);
    expect(sessionPaths(project, ID_A)).toEqual({
      dir,
      snapshot: join(dir, "snapshot.json"),
      spill: join(dir, "spill"),
      children: join(dir, "children"),
      archive: join(dir, "archive"),
      active: join(dir, ".active"),
      holder: join(dir, ".active.holder"),
    });
    expect(helDir(project)).toBe(join(project, ".hel"));
  });

  it("refuse ids that are not a single plain path segment", () => {
    for (const bad of ["", ".", "..", "../x", "a/b", "a\\b", ".hidden", "x".repeat(129)]) {
      expect(() => sessionPaths(project, bad)).toThrow(SessionError);
    }
  });
});

describe("save and load", () => {
  it("round-trips a snapshot exactly", async () => {
    const snapshot = makeSnapshot(project, ID_A);
    await saveSnapshot(project, snapshot);
    expect(await loadSnapshot(project, ID_A)).toEqual(snapshot);
  });

  it("writes JSON.stringify of the validated snapshot with one message per line", async () => {
    const snapshot = makeSnapshot(project, ID_A);
    await saveSnapshot(project, snapshot);
    const text = readFileSync(snapshotFile(ID_A), "utf8");
    const valid = SnapshotSchema.parse(snapshot);
    const { messages, ...header } = valid;
    const [first, ...rest] = text.split("\n");
    const lines = messages.map((m, i) => JSON.stringify(m) + (i < messages.length - 1 ? "," : ""));
    expect(rest).toEqual([...lines, "]}", ""]);
    // Then the index: each message's role and call ids, and the message lines' checksum; last the MAC (signature.ts).
    expect(first!.replace(/"mac":"[0-9a-f]{64}"/, UNSIGNED_MAC)).toBe(
      `${JSON.stringify(header).slice(0, -1)},"messages_index":${JSON.stringify({
        crc32: crc32(lines.join("\n")),
        entries: ["s", "u", ["a", [["call_1", "read_file"]]], ["t", "call_1"], "a"],
      })},${UNSIGNED_MAC},"messages":[`,
    );
    expect(first).not.toContain(UNSIGNED_MAC);
    expect(withoutIndex(text.replaceAll("\n", ""))).toBe(JSON.stringify(valid));
  });

  it("encodes non-ASCII text and an empty conversation the way JSON.stringify does, plus line breaks", () => {
    const snapshot = makeSnapshot(project, ID_A);
    snapshot.messages.push({ role: "user", content: 'naïve — 日本語 😀 \u2028 "quotes" \\ end\nsecond line' });
    const encode = ({ messages, ...header }: Snapshot) => Buffer.concat(encodeSnapshot(header, messages)).toString("utf8");
    // JSON.stringify never writes a raw line break, so every one in the file is the encoder's.
    expect(withoutIndex(encode(snapshot).replaceAll("\n", ""))).toBe(JSON.stringify(snapshot));
    expect(encode(snapshot).split("\n")).toHaveLength(snapshot.messages.length + 3);
    // Again, now from the per-message cache, into a buffer too small to start with.
    const { messages, ...header } = snapshot;
    expect(Buffer.concat(encodeSnapshot(header, messages, new ByteWriter(Buffer.alloc(8)))).toString("utf8")).toBe(encode(snapshot));
    const empty = makeSnapshot(project, ID_A, { messages: [] });
    expect(encode(empty)).toBe(`${JSON.stringify({ ...empty, messages: undefined }).slice(0, -1)},"messages_index":{"crc32":0,"entries":[]},${UNSIGNED_MAC},"messages":[\n]}\n`);
    expect(layoutOf(Buffer.from(encode(empty)))).toEqual({ header: { ...JSON.parse(JSON.stringify(empty)), messages_index: { crc32: 0, entries: [] }, mac: "0".repeat(64), messages: [] }, messages: [] });
  });

  it("reads hel's layout a line at a time, and any other layout of the same JSON whole", async () => {
    const snapshot = makeSnapshot(project, ID_A);
    snapshot.messages[4] = { role: "assistant", content: "Ça exporte « a »\r\n— 完成 ✓" };
    await saveSnapshot(project, snapshot);
    const text = readFileSync(snapshotFile(ID_A), "utf8");
    const { messages, ...header } = JSON.parse(text) as Snapshot;
    expect(layoutOf(Buffer.from(text))).toEqual({ header: { ...header, messages: [] }, messages });
    // An editor's CRLF line ends, or a byte order mark, are still hel's layout.
    expect(layoutOf(Buffer.from(text.replaceAll("\n", "\r\n")))).toEqual({ header: { ...header, messages: [] }, messages });
    expect(layoutOf(Buffer.from(`\ufeff${text}`))).toEqual({ header: { ...header, messages: [] }, messages });
    // Pretty-printed, or all on one line: not the layout, so the store parses the file whole.
    for (const other of [JSON.stringify(JSON.parse(text), null, 2), JSON.stringify(JSON.parse(text))]) {
      expect(splitSnapshot(Buffer.from(other))).toBeNull();
      writeFileSync(snapshotFile(ID_A), other);
      expect(await loadSnapshot(project, ID_A, adopted)).toEqual(snapshot);
    }
    // Two messages on one line: each line is no longer a message, but the file is still JSON.
    const lines0 = text.split("\n");
    const joined = [lines0[0], `${lines0[1]} ${lines0[2]}`, ...lines0.slice(3)].join("\n");
    expect(splitSnapshot(Buffer.from(joined))).not.toBeNull();
    writeFileSync(snapshotFile(ID_A), joined);
    expect(await loadSnapshot(project, ID_A, adopted)).toEqual(snapshot);
    // Not JSON at all when read whole either: a trailing comma, text after the end, a line cut short
    // (its comma kept). The first two are not the layout; the cut line is, and its message does not parse.
    const lines = text.split("\n");
    const cut = text.replace(lines[2]!, `${lines[2]!.slice(0, 20)},`);
    for (const bad of [text.replace(/\n\]\}\n$/, ",\n]}\n"), `${text}x`, cut]) {
      expect(() => JSON.parse(bad)).toThrow();
      expect(splitSnapshot(Buffer.from(bad)) === null).toBe(bad !== cut);
      writeFileSync(snapshotFile(ID_A), bad);
      await expect(loadSnapshot(project, ID_A)).rejects.toThrow(/snapshot\.json is not valid JSON \(/);
    }
  });

  it("loads non-ASCII snapshots and tolerates a byte order mark added by an editor", async () => {
    const snapshot = makeSnapshot(project, ID_A);
    snapshot.messages[4] = { role: "assistant", content: "Ça exporte « a » et 'b' — 完成 ✓" };
    await saveSnapshot(project, snapshot);
    expect(await loadSnapshot(project, ID_A)).toEqual(snapshot);
    writeFileSync(snapshotFile(ID_A), "\ufeff" + readFileSync(snapshotFile(ID_A), "utf8"));
    expect(await loadSnapshot(project, ID_A, adopted)).toEqual(snapshot);
  });

  it("keeps loaded messages as the bytes it read, and the next save writes them from there unserialized", async () => {
    const { snapshot, text: saved } = await savedSnapshot();
    const file = Buffer.from(saved);
    const loaded = await loadSnapshot(project, ID_A);
    expect(loaded.messages.every((m) => storedJson(m) !== undefined)).toBe(true);
    // The history is one piece, a view of the bytes the load read, between the header and the end.
    const { messages, ...header } = loaded;
    const pieces = encodeSnapshot(header, messages);
    expect(pieces).toHaveLength(3);
    expect(pieces[1]!.buffer).toBe(storedJson(messages[0]!)!.source.buffer);
    expect(Buffer.concat(pieces).toString()).toBe(file.toString().replace(/"mac":"[0-9a-f]{64}"/, UNSIGNED_MAC));
    // A new turn: the file is still exactly JSON.stringify of the snapshot, a message per line.
    const next = { ...loaded, messages: [...loaded.messages, { role: "user", content: "next" } as const, { role: "assistant", content: "ok" } as const] };
    await saveSnapshot(project, next);
    const text = readFileSync(snapshotFile(ID_A), "utf8");
    expect(withoutIndex(text.replaceAll("\n", ""))).toBe(JSON.stringify(SnapshotSchema.parse({ ...snapshot, messages: [...snapshot.messages, ...next.messages.slice(-2)] })));
    expect(text.split("\n")).toHaveLength(next.messages.length + 3);
  });

  it("loads a file as hel wrote it from its index, unparsed; a file changed since is parsed and checked message by message", async () => {
    const { snapshot, text } = await savedSnapshot();
    const lines = text.split("\n");
    const asWritten = await loadSnapshot(project, ID_A);
    expect(asWritten.messages.every((m) => storedJson(m) !== undefined)).toBe(true);
    expect(asWritten).toEqual(snapshot);
    // A message turned invalid (a role no message has), the checksum made to match: without hel's
    // signature the index is not trusted, even by a user who adopts the file, and the message is refused.
    const forged = lines.map((line) => line.replace('{"role":"user","content":"What', '{"role":"nobody","content":"What'));
    const body = forged.slice(1, -2).join("\n");
    forged[0] = forged[0]!.replace(/"crc32":\d+/, `"crc32":${crc32(body)}`);
    writeFileSync(snapshotFile(ID_A), forged.join("\n"));
    expect((await sessionError(() => loadSnapshot(project, ID_A, adopted))).message).toMatch(/messages\[1\]/);
    // The same change without the checksum: the file is read message by message, and refused.
    writeFileSync(snapshotFile(ID_A), lines.map((line) => line.replace('{"role":"user","content":"What', '{"role":"nobody","content":"What')).join("\n"));
    expect((await sessionError(() => loadSnapshot(project, ID_A, adopted))).message).toMatch(/messages\[1\]/);
    // An edit of the same length: not hel's any more, so refused unless adopted; adopted, the edit is what loads.
    writeFileSync(snapshotFile(ID_A), text.replace("What does a.ts export?", "What does b.ts export?"));
    expect((await sessionError(() => loadSnapshot(project, ID_A))).message).toContain("was not written by hel here");
    const edited = await loadSnapshot(project, ID_A, adopted);
    expect(edited.messages[1]).toEqual({ role: "user", content: "What does b.ts export?" });
    expect(edited.messages.slice(2)).toEqual(snapshot.messages.slice(2));
  });

  it("checksums what a save adds onto what it knows: the file's checksum is always that of its message lines", async () => {
    const checksumOk = () => {
      const lines = readFileSync(snapshotFile(ID_A), "utf8").split("\n");
      return JSON.parse(`${lines[0]}]}`).messages_index.crc32 === crc32(lines.slice(1, -2).join("\n"));
    };
    const snapshot = makeSnapshot(project, ID_A);
    await saveSnapshot(project, snapshot);
    expect(checksumOk()).toBe(true);
    // Appended to: only the new messages are checksummed, onto the last save's sum.
    snapshot.messages.push({ role: "user", content: "again" }, { role: "assistant", content: "ok" });
    await saveSnapshot(project, snapshot);
    expect(checksumOk()).toBe(true);
    // Loaded, given another system message first (as a resume does), then appended to.
    const loaded = await loadSnapshot(project, ID_A);
    const resumed = { ...loaded, messages: [{ role: "system", content: "another prompt" } as const, ...loaded.messages.slice(1), { role: "user", content: "more" } as const] };
    await saveSnapshot(project, resumed);
    expect(checksumOk()).toBe(true);
    // A span replaced before the end (a fold): the sum starts over.
    const folded = { ...resumed, messages: [resumed.messages[0]!, { role: "user", content: "[note]" } as const, ...resumed.messages.slice(-1)] };
    await saveSnapshot(project, folded);
    expect(checksumOk()).toBe(true);
    expect((await loadSnapshot(project, ID_A)).messages.every((m) => storedJson(m) !== undefined)).toBe(true);
  });

  it("rebuilds, rather than keeps, a message whose bytes say more than it holds, and a file that is not UTF-8", async () => {
    const { snapshot, text } = await savedSnapshot();
    // A key the schema drops, added by hand: requests must not carry it.
    writeFileSync(snapshotFile(ID_A), text.replace('{"role":"user",', '{"role":"user","name":"mallory",'));
    const extra = await loadSnapshot(project, ID_A, adopted);
    expect(extra).toEqual(snapshot);
    const user = extra.messages.findIndex((m) => m.role === "user");
    expect(storedJson(extra.messages[user]!)).toBeUndefined();
    expect(storedJson(extra.messages[user + 1]!)).toBeDefined();
    await saveSnapshot(project, extra);
    expect(readFileSync(snapshotFile(ID_A), "utf8")).toBe(text);
    // A byte that is not UTF-8 inside a message: it loads as U+FFFD, and is saved as that.
    const bytes = Buffer.from(text.replace('"content":"', '"content":"\u0001'));
    bytes[bytes.indexOf(0x01)] = 0xff;
    writeFileSync(snapshotFile(ID_A), bytes);
    const mangled = await loadSnapshot(project, ID_A, adopted);
    expect(mangled.messages.some((m) => storedJson(m) !== undefined)).toBe(false);
    expect(mangled.messages[0]!.content).toBe(`\ufffd${snapshot.messages[0]!.content}`);
    await saveSnapshot(project, mangled);
    expect(isUtf8(readFileSync(snapshotFile(ID_A)))).toBe(true);
  });

  it("saves a snapshot loaded with an editor's CRLF line ends in hel's own layout", async () => {
    const { text } = await savedSnapshot();
    writeFileSync(snapshotFile(ID_A), text.replaceAll("\n", "\r\n"));
    const loaded = await loadSnapshot(project, ID_A, adopted);
    expect(loaded.messages.every((m) => storedJson(m) !== undefined)).toBe(true);
    await saveSnapshot(project, loaded);
    expect(readFileSync(snapshotFile(ID_A), "utf8")).toBe(text);
  });

  it("fills children with 0 when left out", async () => {
    const { children: _, ...rest } = makeSnapshot(project, ID_A);
    await saveSnapshot(project, rest);
    expect((await loadSnapshot(project, ID_A)).children).toBe(0);
  });

  it("writes nothing before the first save, then creates .hel with a .gitignore of *", async () => {
    const id = newSessionId();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    sessionPaths(project, id);
    expect(await listSessions(project)).toEqual([]);
    expect(await latestSessionId(project)).toBeNull();
    await expect(resolveSessionId(project, "abc")).rejects.toThrow(SessionError);
    await withStoreLock(project, async () => undefined);
    expect(readdirSync(project)).toEqual([]);

    await saveSnapshot(project, makeSnapshot(project, id));
    expect(readFileSync(join(project, ".hel/.gitignore"), "utf8")).toBe("*\n");
    expect(readdirSync(sessionPaths(project, id).dir)).toEqual(["snapshot.json"]);
  });

  it("keeps a .gitignore the user edited", async () => {
    mkdirSync(join(project, ".hel"));
    writeFileSync(join(project, ".hel/.gitignore"), "*\n!notes.md\n");
    await ensureHelDir(project);
    await saveSnapshot(project, makeSnapshot(project, ID_A));
    expect(readFileSync(join(project, ".hel/.gitignore"), "utf8")).toBe("*\n!notes.md\n");
  });

  it("replaces the previous snapshot on the next save", async () => {
    await saveSnapshot(project, makeSnapshot(project, ID_A));
    const next = makeSnapshot(project, ID_A, { updated_at: "2025-01-01T11:00:00.000Z" });
    next.messages.push({ role: "user", content: "And b?" }, { role: "assistant", content: "b is 2." });
    await saveSnapshot(project, next);
    expect(await loadSnapshot(project, ID_A)).toEqual(next);
    expect(readdirSync(sessionPaths(project, ID_A).dir)).toEqual(["snapshot.json"]);
  });

  it("queues concurrent saves of one session so the last one wins", async () => {
    const saves = [1, 2, 3, 4, 5].map((n) => saveSnapshot(project, makeSnapshot(project, ID_A, { meter: { message_count: 5, input_tokens: n } })));
    await Promise.all(saves);
    expect((await loadSnapshot(project, ID_A)).meter.input_tokens).toBe(5);
  });

  it("saves of different sessions at the same time do not share an encoding buffer", async () => {
    const big = (id: string, fill: string) => {
      const s = makeSnapshot(project, id);
      s.messages.push({ role: "user", content: fill.repeat(300_000) }, { role: "assistant", content: fill });
      return s;
    };
    await saveSnapshot(project, big(ID_C, "c")); // leaves a spare buffer behind
    const a = big(ID_A, "a");
    const b = big(ID_B, "b");
    await Promise.all([saveSnapshot(project, a), saveSnapshot(project, b), saveSnapshot(project, makeSnapshot(project, ID_C))]);
    expect(await loadSnapshot(project, ID_A)).toEqual(a);
    expect(await loadSnapshot(project, ID_B)).toEqual(b);
    expect(await loadSnapshot(project, ID_C)).toEqual(makeSnapshot(project, ID_C));
  });

  it("refuses to save a snapshot that could not be loaded, writing nothing", async () => {
    const bad = makeSnapshot(project, ID_A);
    bad.messages.splice(3, 1); // the tool result
    const err = await sessionError(() => saveSnapshot(project, bad));
    expect(err.exitCode).toBe(1);
    expect(err.message).toBe(`could not save session ${ID_A}: tool call call_1 (read_file) in messages[2] has no result — this is a bug in hel; the conversation is kept in memory and saved after the next turn`);
    const invalid = { ...makeSnapshot(project, ID_A), usage: { requests: -1 } } as unknown as Snapshot;
    expect((await sessionError(() => saveSnapshot(project, invalid))).message).toMatch(/snapshot is invalid \(has an invalid usage.requests .*; is missing usage.prompt_tokens/);
    // Messages are checked one by one, the first time a save sees each; the error names the index.
    const badMessage = makeSnapshot(project, ID_A);
    badMessage.messages.push({ role: "user" } as unknown as Snapshot["messages"][number]);
    const index = badMessage.messages.length - 1;
    expect((await sessionError(() => saveSnapshot(project, badMessage))).message).toMatch(new RegExp(`snapshot is invalid \\(is missing messages\\[${index}\\]\\.content`));
    expect(existsSync(join(project, ".hel"))).toBe(false);
  });
});

describe("a failed save never damages the previous snapshot", () => {
  const noSpace = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });

  it("disk full halfway through the write: one clear line, old snapshot intact, no temporary file left", async () => {
    await saveSnapshot(project, makeSnapshot(project, ID_A));
    const before = readFileSync(snapshotFile(ID_A));
    const halfThenFull = async (file: FileHandle, pieces: readonly Uint8Array[]) => {
      const data = Buffer.concat(pieces);
      await file.write(data, 0, data.byteLength >> 1);
      throw noSpace;
    };
    const next = makeSnapshot(project, ID_A, { updated_at: "2025-01-02T00:00:00.000Z" });
    const err = await sessionError(() => saveSnapshot(project, next, { writeData: halfThenFull }));
    expect(err.exitCode).toBe(1);
    expect(err.message).toBe(`could not save session ${ID_A}: no space left on device — free some space; the conversation is kept in memory and saved after the next turn`);
    expect(readFileSync(snapshotFile(ID_A)).equals(before)).toBe(true);
    expect(readdirSync(sessionPaths(project, ID_A).dir)).toEqual(["snapshot.json"]);
    // The next save, with the disk free again, succeeds.
    await saveSnapshot(project, next);
    expect(await loadSnapshot(project, ID_A)).toEqual(next);
  });

  it("a writer that silently writes only part of the file (write-file-atomic 7's bug) is caught before the rename", async () => {
    await saveSnapshot(project, makeSnapshot(project, ID_A));
    const before = readFileSync(snapshotFile(ID_A));
    const shortWrite = async (file: FileHandle, pieces: readonly Uint8Array[]) => {
      await file.write(Buffer.concat(pieces), 0, 100);
    };
    const err = await sessionError(() => saveSnapshot(project, makeSnapshot(project, ID_A), { writeData: shortWrite }));
    expect(err.message).toMatch(/^could not save session .*: the disk accepted only part of the file — free some space; the conversation is kept/);
    expect(readFileSync(snapshotFile(ID_A)).equals(before)).toBe(true);
    expect(readdirSync(sessionPaths(project, ID_A).dir)).toEqual(["snapshot.json"]);
  });

  it("a session path that cannot be a directory fails with one line and no stack", async () => {
    mkdirSync(join(project, ".hel/sessions"), { recursive: true });
    writeFileSync(join(project, ".hel/sessions", ID_A), "not a directory");
    const err = await sessionError(() => saveSnapshot(project, makeSnapshot(project, ID_A)));
    expect(err.exitCode).toBe(1);
    expect(err.message).toMatch(new RegExp(`^could not save session ${ID_A}: .*${ID_A} is not a directory; remove it; the conversation is kept in memory`));
    expect(err.message).not.toContain("\n");
  });

  it("a real short write (file size limit in a child process) fails cleanly and keeps the old snapshot", async () => {
    const modules = compiledSrc();
    await saveSnapshot(project, makeSnapshot(project, ID_A));
    const before = readFileSync(snapshotFile(ID_A));
    expect(before.byteLength).toBeLessThan(16 * 1024);
    // `ulimit -f 64` allows 32 KB (dash) or 64 KB (bash); the child writes a 1 MB snapshot, which the
    // kernel cuts short with EFBIG, exactly as a full disk cuts a write short with ENOSPC.
    const helper = join(import.meta.dirname, "../helpers/save-child.mjs");
    const out = execFileSync("/bin/sh", ["-c", 'ulimit -f 64 && exec "$0" "$@"', process.execPath, helper, modules, project, ID_A], {
      encoding: "utf8",
    });
    const result = JSON.parse(out) as { ok: boolean; message: string; exitCode: number };
    expect(result.ok).toBe(false);
    expect(result.exitCode).toBe(1);
    expect(result.message).toMatch(/^could not save session .*: (the file is larger than this system allows|the disk accepted only part of the file)/);
    expect(readFileSync(snapshotFile(ID_A)).equals(before)).toBe(true);
    expect(readdirSync(sessionPaths(project, ID_A).dir)).toEqual(["snapshot.json"]);
  });

  it("a temporary file left by a process killed mid-save is swept by the next save", async () => {
    await saveSnapshot(project, makeSnapshot(project, ID_A));
    const dir = sessionPaths(project, ID_A).dir;
    writeFileSync(join(dir, "snapshot.json.999999999-deadbeef.tmp"), "{partial");
    await saveSnapshot(project, makeSnapshot(project, ID_A));
    expect(readdirSync(dir)).toEqual(["snapshot.json"]);
  });
});

describe("loading refuses what it cannot resume, and never writes", () => {
  /** Writes raw text as a session's snapshot, then expects exit 2, the message, and the bytes untouched. */
  async function expectRefused(id: string, text: string, message: string | RegExp): Promise<void> {
    const file = snapshotFile(id);
    mkdirSync(sessionPaths(project, id).dir, { recursive: true });
    writeFileSync(file, text);
    const mtime = statSync(file).mtimeMs;
    const err = await sessionError(() => loadSnapshot(project, id));
    expect(err.exitCode).toBe(2);
    if (typeof message === "string") expect(err.message).toBe(message);
    else expect(err.message).toMatch(message);
    expect(err.message).not.toContain("\n");
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(readdirSync(sessionPaths(project, id).dir)).toEqual(["snapshot.json"]);
  }
  const valid = (): Record<string, unknown> => JSON.parse(JSON.stringify(makeSnapshot(project, ID_A))) as Record<string, unknown>;
  const where = () => `(${snapshotFile(ID_A)}) — fix the file or delete the session with \`hel sessions rm ${ID_A}\``;

  it("invalid JSON", async () => {
    const text = JSON.stringify(valid()).slice(0, 200);
    await expectRefused(ID_A, text, new RegExp(`^session ${ID_A}: snapshot.json is not valid JSON \\(.+\\) \\(${snapshotFile(ID_A)}\\) — fix the file`));
  });

  it("not an object", async () => {
    await expectRefused(ID_A, "[1,2]", `session ${ID_A}: snapshot.json is not a JSON object ${where()}`);
  });

  it("another schema_version", async () => {
    await expectRefused(
      ID_A,
      JSON.stringify({ ...valid(), schema_version: 3 }),
      `session ${ID_A} was written by another hel version (schema_version 3; this hel reads 1 and 2) — resume it with that version, or start a new session`,
    );
  });

  it("no schema_version", async () => {
    const { schema_version: _, ...rest } = valid();
    await expectRefused(ID_A, JSON.stringify(rest), `session ${ID_A}: snapshot.json has no schema_version, so it is not a hel snapshot ${where()}`);
  });

  it("missing fields, named by their path", async () => {
    const snapshot = valid();
    delete snapshot.meter;
    await expectRefused(ID_A, JSON.stringify(snapshot), `session ${ID_A}: snapshot.json is missing meter ${where()}`);
  });

  it("a message missing a field, in hel's own layout, named by its path", async () => {
    const snapshot = makeSnapshot(project, ID_A);
    await saveSnapshot(project, snapshot);
    const text = readFileSync(snapshotFile(ID_A), "utf8");
    const line = JSON.stringify(snapshot.messages[1]);
    const { content: _, ...without } = snapshot.messages[1] as { content: string };
    await expectRefused(ID_A, text.replace(line, JSON.stringify(without)), `session ${ID_A}: snapshot.json is missing messages[1].content ${where()}`);
  });

  it("messages that are not a list", async () => {
    await expectRefused(ID_A, JSON.stringify({ ...valid(), messages: { a: 1 } }), new RegExp(`^session ${ID_A}: snapshot.json has an invalid messages \\(`));
  });

  it("a field of the wrong type", async () => {
    const snapshot = valid();
    (snapshot.request_config as Record<string, unknown>).access = "root";
    await expectRefused(ID_A, JSON.stringify(snapshot), new RegExp(`^session ${ID_A}: snapshot.json has an invalid request_config.access \\(.*"read-only".*\\) \\(`));
  });

  it("a tool call without its result", async () => {
    const snapshot = valid();
    (snapshot.messages as unknown[]).splice(3, 1);
    await expectRefused(ID_A, JSON.stringify(snapshot), `session ${ID_A}: cannot be resumed: tool call call_1 (read_file) in messages[2] has no result ${where()}`);
  });

  it("an orphan tool result", async () => {
    const snapshot = valid();
    (snapshot.messages as unknown[]).push({ role: "tool", tool_call_id: "call_9", content: "?" });
    await expectRefused(ID_A, JSON.stringify(snapshot), `session ${ID_A}: cannot be resumed: the tool result in messages[5] answers no tool call (tool_call_id call_9) ${where()}`);
  });

  it("a snapshot of another session", async () => {
    await expectRefused(ID_A, JSON.stringify({ ...valid(), session_id: ID_B }), `session ${ID_A}: snapshot.json belongs to session ${ID_B}, not to the directory it is in ${where()}`);
  });

  it("a session of another directory, named so the user can go there", async () => {
    await expectRefused(ID_A, JSON.stringify({ ...valid(), cwd: "/other/dir" }), `session ${ID_A} belongs to /other/dir — run hel from there or with -C /other/dir`);
  });

  it("an unknown id, and a session directory that was never saved", async () => {
    const unknown = await sessionError(() => loadSnapshot(project, ID_C));
    expect([unknown.exitCode, unknown.message]).toEqual([2, `no session ${ID_C} in this project — \`hel sessions ls\` lists them`]);
    mkdirSync(sessionPaths(project, ID_B).dir, { recursive: true });
    const unsaved = await sessionError(() => loadSnapshot(project, ID_B));
    expect(unsaved.exitCode).toBe(2);
    expect(unsaved.message).toBe(`session ${ID_B} has no saved snapshot (${snapshotFile(ID_B)}) — it never finished an answer; \`hel sessions rm ${ID_B}\` deletes it`);
  });

  it("an id that could leave the sessions directory", async () => {
    const err = await sessionError(() => loadSnapshot(project, "../../etc"));
    expect(err.exitCode).toBe(2);
  });
});

describe("tool call pairing", () => {
  const call = (id: string) => ({ id, type: "function" as const, function: { name: "read_file", arguments: "{}" } });
  it("accepts results in any order directly after their calls", () => {
    expect(
      findToolPairingError([
        { role: "user", content: "x" },
        { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
        { role: "tool", tool_call_id: "b", content: "" },
        { role: "tool", tool_call_id: "a", content: "" },
        { role: "assistant", content: "done" },
      ]),
    ).toBeNull();
  });
  it("refuses a result separated from its call, and duplicate call ids", () => {
    expect(
      findToolPairingError([
        { role: "assistant", content: null, tool_calls: [call("a")] },
        { role: "user", content: "x" },
        { role: "tool", tool_call_id: "a", content: "" },
      ]),
    ).toBe("tool call a (read_file) in messages[0] has no result");
    expect(findToolPairingError([{ role: "assistant", content: null, tool_calls: [call("a"), call("a")] }])).toBe("messages[0] uses the same tool call id twice");
  });
});

describe("resolving ids", () => {
  beforeEach(async () => {
    for (const id of [ID_A, ID_B, ID_C]) await saveSnapshot(project, makeSnapshot(project, id));
  });

  it("takes a full id or a unique prefix", async () => {
    expect(await resolveSessionId(project, ID_B)).toBe(ID_B);
    expect(await resolveSessionId(project, "aaaa1")).toBe(ID_A);
    expect(await resolveSessionId(project, "c")).toBe(ID_C);
  });

  it("refuses an unknown id with exit 2", async () => {
    const err = await sessionError(() => resolveSessionId(project, "bbbb"));
    expect([err.exitCode, err.message]).toEqual([2, "no session bbbb in this project — `hel sessions ls` lists them"]);
    expect((await sessionError(() => resolveSessionId(project, ""))).exitCode).toBe(2);
  });

  it("refuses an ambiguous prefix, listing the candidates", async () => {
    const err = await sessionError(() => resolveSessionId(project, "aaaa"));
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(`session id aaaa is ambiguous: it matches ${ID_A}, ${ID_B} — type more of the id`);
  });
});

describe("listing", () => {
  it("lists newest first with summaries; broken and unsaved sessions get a note instead of failing", async () => {
    const a = makeSnapshot(project, ID_A, { updated_at: "2025-01-01T10:00:00.000Z" });
    const b = makeSnapshot(project, ID_B, { updated_at: "2025-03-01T10:00:00.000Z" });
    b.messages.push({ role: "user", content: "Second instruction" }, { role: "assistant", content: "ok" });
    b.usage = { ...b.usage, prompt_tokens: 50_000, completion_tokens: 2_000 };
    b.request_config = { ...b.request_config, model: "deepseek-pro" };
    await saveSnapshot(project, a);
    await saveSnapshot(project, b);
    // Broken, but still says when it was written.
    const c = { ...JSON.parse(JSON.stringify(makeSnapshot(project, ID_C))), updated_at: "2025-02-01T10:00:00.000Z", schema_version: 7 };
    mkdirSync(sessionPaths(project, ID_C).dir, { recursive: true });
    writeFileSync(snapshotFile(ID_C), JSON.stringify(c));
    const unsaved = "dddd4444-4444-4444-8444-444444444444";
    mkdirSync(sessionPaths(project, unsaved).dir, { recursive: true });
    // Without a snapshot, the directory's own time orders it.
    utimesSync(sessionPaths(project, unsaved).dir, new Date("2024-12-01"), new Date("2024-12-01"));
    const lease = await acquireLease(project, ID_A);
    try {
      const list = await listSessions(project);
      expect(list.map((s) => s.id)).toEqual([ID_B, ID_C, ID_A, unsaved]);
      expect(list[0]).toEqual({
        id: ID_B,
        updated_at: "2025-03-01T10:00:00.000Z",
        turns: 2,
        first_instruction: "What does a.ts export?",
        tokens: 52_000,
        model: "deepseek-pro",
        in_use: false,
        written_by_hel: true,
        error: null,
      });
      // Written by hand, and marked so: hel's own sessions carry its signature.
      expect(list[1]).toMatchObject({ id: ID_C, turns: null, in_use: false, written_by_hel: false, error: expect.stringContaining("schema_version 7") });
      expect(list[2]).toMatchObject({ id: ID_A, turns: 1, tokens: 2150, in_use: true, error: null });
      expect(list[3]).toMatchObject({ id: unsaved, updated_at: null, error: expect.stringContaining("has no saved snapshot") });
      // -c picks the newest session even when it is broken, so resuming it fails loudly.
      expect(await latestSessionId(project)).toBe(ID_B);
    } finally {
      await lease.release();
    }
    const list = await listSessions(project);
    expect(list.find((s) => s.id === ID_A)?.in_use).toBe(false);
  });

  it("-c and ls take a broken snapshot's time from its first line, and -c reads no further", async () => {
    await saveSnapshot(project, makeSnapshot(project, ID_A, { updated_at: "2025-03-01T10:00:00.000Z" }));
    // Written last, so its file is the newest, but its header says it is older; a message line is cut.
    await saveSnapshot(project, makeSnapshot(project, ID_B, { updated_at: "2025-01-01T10:00:00.000Z" }));
    const file = sessionPaths(project, ID_B).snapshot;
    const lines = readFileSync(file, "utf8").split("\n");
    // Edited in an editor that adds a byte order mark and CRLF line ends, too.
    writeFileSync(file, `\ufeff${[lines[0], '{"role":"user","content":"cut sh', ...lines.slice(2)].join("\r\n")}`);
    expect(statSync(file).mtimeMs).toBeGreaterThanOrEqual(statSync(sessionPaths(project, ID_A).snapshot).mtimeMs);
    expect((await listSessions(project)).map((s) => [s.id, s.updated_at, s.error !== null])).toEqual([
      [ID_A, "2025-03-01T10:00:00.000Z", false],
      [ID_B, "2025-01-01T10:00:00.000Z", true],
    ]);
    expect(await latestSessionId(project)).toBe(ID_A);
  });

  it("latest skips sessions that were never saved", async () => {
    await saveSnapshot(project, makeSnapshot(project, ID_A));
    mkdirSync(sessionPaths(project, ID_C).dir, { recursive: true });
    expect(await latestSessionId(project)).toBe(ID_A);
  });
});

describe("removing", () => {
  beforeEach(async () => {
    for (const id of [ID_A, ID_B]) await saveSnapshot(project, makeSnapshot(project, id));
  });

  it("removes only that session's directory: snapshot, spill and children; links are not followed", async () => {
    writeFileSync(join(project, "keep.ts"), "export {};\n");
    const a = sessionPaths(project, ID_A);
    mkdirSync(a.spill);
    mkdirSync(a.children);
    writeFileSync(join(a.spill, "call_1.txt"), "big");
    writeFileSync(join(a.children, "1.json"), "{}");
    symlinkSync(join(project, "keep.ts"), join(a.spill, "link-to-project-file"));
    symlinkSync(project, join(a.spill, "link-to-project"));

    expect(await removeSessions(project, ["aaaa1"])).toEqual([ID_A]);
    expect(existsSync(a.dir)).toBe(false);
    expect(readFileSync(join(project, "keep.ts"), "utf8")).toBe("export {};\n");
    expect(await loadSnapshot(project, ID_B)).toEqual(makeSnapshot(project, ID_B));
    expect(readdirSync(helDir(project)).sort()).toEqual([".gitignore", "sessions"]);
    expect(readdirSync(join(project)).sort()).toEqual([".hel", "keep.ts"]);
  });

  it("removes several at once, and all or nothing when one id is unknown", async () => {
    const err = await sessionError(() => removeSessions(project, [ID_A, "ffff"]));
    expect(err.exitCode).toBe(2);
    expect(existsSync(sessionPaths(project, ID_A).dir)).toBe(true);
    expect((await sessionError(() => removeSessions(project, ["aaaa"]))).message).toContain("ambiguous");
    expect(await removeSessions(project, [ID_A, ID_B, ID_A])).toEqual([ID_A, ID_B]);
    expect(readdirSync(join(project, ".hel/sessions"))).toEqual([]);
  });

  it("refuses, with exit 3, a session whose lease is held, and removes nothing", async () => {
    const lease = await acquireLease(project, ID_B);
    try {
      const err = await sessionError(() => removeSessions(project, [ID_A, ID_B]));
      expect(err.exitCode).toBe(3);
      expect(err.message).toMatch(new RegExp(`^session ${ID_B} is in use by another hel process — `));
      expect(existsSync(snapshotFile(ID_A))).toBe(true);
      expect(existsSync(snapshotFile(ID_B))).toBe(true);
    } finally {
      await lease.release();
    }
    expect(await removeSessions(project, [ID_B])).toEqual([ID_B]);
  });
});

// Child process for the session rows: saves, or loads, one snapshot size with the real saveSnapshot /
// loadSnapshot. Contract: prints one JSON line with per-repetition times and, per operation, how far
// VmHWM rose above the RSS just before it (the peak is reset first, and the collector runs before
// each operation so one operation's garbage is not charged to the next). One unmeasured operation
// comes first: hel saves after every answer, so from the second save on the store already knows the
// snapshot's size, and the code is compiled.
// Loads run in a process of their own, as `hel --resume` does: a process that has just built and
// saved a 50 MB conversation holds it all, and every collection during a load would walk it too.
// The loading process then times a resume's first save: a loaded snapshot with one more exchange.
// Afterwards the steps inside save or load are timed one by one with the same exported functions the
// store calls, so a slow total can be traced to validation, encoding, writing or parsing.
//   node --expose-gc out/bench/session-probe.js save <projectDir> <bytes> <reps>
//   node --expose-gc out/bench/session-probe.js load <projectDir> <id> <reps>
import { randomUUID } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { writeFileAtomic } from "../src/fs/atomic-write.js";
import { sessionPaths } from "../src/session/paths.js";
import { encodeSnapshot, SnapshotHeaderSchema, SnapshotSchema, splitSnapshot } from "../src/session/snapshot-format.js";
import { loadSnapshot, saveSnapshot } from "../src/session/snapshot-file.js";
import { findToolPairingError } from "../src/wire/tool-pairing.js";
import { toolDefinitions } from "../src/tools/registry.js";
import { readFileTool } from "../src/tools/file/read-file.js";
import { searchReplaceTool } from "../src/tools/file/search-replace.js";
import { runCommandTool } from "../src/tools/command/run-command.js";
import { findFilesTool, grepTool } from "../src/tools/search/tools.js";
import type { Tool } from "../src/tools/types.js";
import { MessageSchema } from "../src/wire/messages.js";
import { ByteWriter } from "../src/wire/byte-writer.js";
import { sessionOfBytes } from "./history.js";
import { resetPeakRss, selfRss } from "./procs.js";

const [phase, projectDir, what, repsArg] = process.argv.slice(2) as ["save" | "load", string, string, string];
const reps = Number(repsArg);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

async function measured<T>(op: () => Promise<T>): Promise<{ ms: number; cpuMs: number; peakMb: number }> {
  gc();
  // gc() returns before its concurrent sweeping ends; timed at once, the operation would share the
  // CPUs with the probe's own collection and be charged for it.
  await new Promise((settled) => setTimeout(settled, 30));
  const canReset = resetPeakRss();
  const before = selfRss().rssMb;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await op();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000, peakMb: canReset ? selfRss().hwmMb - before : Number.NaN };
}

/** Median wall time of `reps` runs of one step, the collector run before each. */
async function step(op: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    gc();
    const t0 = performance.now();
    await op();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times.length % 2 ? times[times.length >> 1]! : (times[times.length / 2 - 1]! + times[times.length / 2]!) / 2;
}

async function save(bytes: number): Promise<object> {
  const snapshot = sessionOfBytes(projectDir, bytes, randomUUID(), toolDefinitions([readFileTool, searchReplaceTool, runCommandTool, grepTool, findFilesTool] as Tool[]));
  const messages = snapshot.messages;
  // A read_file cursor, as a session that read a large file keeps one.
  snapshot.cursors = { c_0123456789ab: { path: "src/parse.ts", nextByte: 51200, nextLine: 1201, linesLeft: null, ino: 1234, size: 204800, mtimeMs: 1700000000000 } };
  const out = { id: snapshot.session_id, fileBytes: 0, messages: messages.length, saveMs: [] as number[], saveCpuMs: [] as number[], savePeakMb: [] as number[], steps: {} as Record<string, number> };
  await saveSnapshot(projectDir, snapshot);
  for (let i = 0; i < reps; i++) {
    const s = await measured(() => saveSnapshot(projectDir, snapshot));
    out.saveMs.push(s.ms);
    out.saveCpuMs.push(s.cpuMs);
    out.savePeakMb.push(s.peakMb);
  }
  const file = sessionPaths(projectDir, out.id).snapshot;
  out.fileBytes = (await stat(file)).size;
  const parsed = SnapshotSchema.parse(snapshot);
  const { messages: parsedMessages, ...header } = parsed;
  const parsedHeader = SnapshotHeaderSchema.parse(header);
  // One buffer for every encoding, as the store keeps one across saves. The messages' JSON is cached
  // after the first encoding, as in a running session where each request has already serialized them.
  const into = new ByteWriter(Buffer.allocUnsafe(out.fileBytes + (out.fileBytes >> 3)));
  const bytesOnDisk = Buffer.concat(encodeSnapshot(parsedHeader, parsedMessages, into));
  out.steps = {
    save_validate_ms: await step(() => SnapshotHeaderSchema.safeParse(header)),
    save_pairing_ms: await step(() => findToolPairingError(parsedMessages)),
    save_encode_ms: await step(() => encodeSnapshot(parsedHeader, parsedMessages, into)),
    save_write_fsync_ms: await step(() => writeFileAtomic(`${file}.bench`, bytesOnDisk)),
  };
  return out;
}

async function load(id: string): Promise<object> {
  const out = { loadMs: [] as number[], loadCpuMs: [] as number[], loadPeakMb: [] as number[], resumeSaveMs: [] as number[], steps: {} as Record<string, number> };
  await loadSnapshot(projectDir, id);
  for (let i = 0; i < reps; i++) {
    // The loaded snapshot is dropped at once, as the measured operation ends.
    const l = await measured(async () => void (await loadSnapshot(projectDir, id)));
    out.loadMs.push(l.ms);
    out.loadCpuMs.push(l.cpuMs);
    out.loadPeakMb.push(l.peakMb);
  }
  // A resume's first save: the loaded conversation and one more exchange, saved as after an answer.
  for (let i = 0; i < reps; i++) {
    const resumed = await loadSnapshot(projectDir, id);
    resumed.messages.push({ role: "user", content: "and now?" }, { role: "assistant", content: "Done." });
    const s = await measured(() => saveSnapshot(projectDir, { ...resumed, updated_at: new Date().toISOString() }));
    out.resumeSaveMs.push(s.ms);
  }
  const file = sessionPaths(projectDir, id).snapshot;
  const bytes = await readFile(file);
  const layout = splitSnapshot(bytes)!;
  const { messages: _, ...header } = layout.header;
  // Decoding and JSON.parse, a message (a line) at a time, as the store reads hel's own layout; like
  // the store, the timed step keeps none of what it parsed.
  const parseLine = (i: number): unknown => JSON.parse(bytes.toString("utf8", layout.messages[2 * i], layout.messages[2 * i + 1]));
  const parsed = Array.from({ length: layout.messages.length / 2 }, (_, i) => parseLine(i));
  out.steps = {
    load_read_ms: await step(() => readFile(file)),
    load_split_parse_ms: await step(() => {
      for (let i = 0; i < parsed.length; i++) parseLine(i);
    }),
    load_validate_ms: await step(() => {
      SnapshotHeaderSchema.safeParse(header);
      for (const m of parsed) MessageSchema.safeParse(m);
    }),
  };
  return out;
}

const result = phase === "save" ? await save(Number(what)) : await load(what);
process.stdout.write(`${JSON.stringify(result)}\n`);

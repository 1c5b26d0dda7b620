// Child process for the session rows: saves and loads one snapshot size with the real saveSnapshot /
// loadSnapshot, in a fresh process per size. Contract: prints one JSON line with per-repetition save
// and load times and, per operation, how far VmHWM rose above the RSS just before it (the peak is
// reset first, and the collector runs before each operation so one operation's garbage is not
// charged to the next). One unmeasured save and load come first: hel saves after every answer, so
// from the second save on the store already knows the snapshot's size, and the code is compiled.
// Afterwards the steps inside save and load are timed one by one with the same exported functions
// the store calls, so a slow total can be traced to validation, encoding, writing or parsing.
//   node --expose-gc dist/bench/session-probe.js <projectDir> <bytes> <reps>
import { randomUUID } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { buildSystemPrompt, isoDay } from "../agent/system-prompt.js";
import { sessionPaths } from "../session/paths.js";
import { encodeSnapshot, SnapshotHeaderSchema, SnapshotSchema, type SnapshotInput } from "../session/snapshot.js";
import { findToolPairingError, loadSnapshot, saveSnapshot } from "../session/store.js";
import { BUILTIN_TOOLS, toolDefinitions } from "../tools/registry.js";
import { historyOfBytes } from "./history.js";
import { resetPeakRss, selfRss } from "./procs.js";

const [projectDir, bytesArg, repsArg] = process.argv.slice(2) as [string, string, string];
const bytes = Number(bytesArg);
const reps = Number(repsArg);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

const now = new Date().toISOString();
const messages = historyOfBytes(buildSystemPrompt({ projectDir, platform: `${process.platform} ${process.arch}`, date: isoDay(new Date()), rules: null }), bytes);
const snapshot: SnapshotInput = {
  schema_version: 1,
  session_id: randomUUID(),
  cwd: projectDir,
  created_at: now,
  updated_at: now,
  request_config: {
    model: "deepseek-flash",
    max_output_tokens: 65536,
    max_steps: 50,
    effort: "high",
    access: "edit",
    delegate: null,
    compaction: { enabled: false, threshold_tokens: null },
  },
  meter: { message_count: messages.length, input_tokens: Math.round(bytes / 4) },
  usage: { requests: messages.length >> 1, prompt_tokens: bytes * 10, completion_tokens: bytes >> 3, prompt_cache_hit_tokens: bytes * 9, prompt_cache_miss_tokens: bytes },
  children: 0,
  compaction: null,
  cursors: { c_0123456789ab: { path: "src/parse.ts", nextByte: 51200, nextLine: 1201, linesLeft: null, ino: 1234, size: 204800, mtimeMs: 1700000000000 } },
  tools: toolDefinitions([...BUILTIN_TOOLS.values()]),
  messages,
};
const id = snapshot.session_id;

async function measured<T>(op: () => Promise<T>): Promise<{ ms: number; cpuMs: number; peakMb: number }> {
  gc();
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

await saveSnapshot(projectDir, snapshot);
await loadSnapshot(projectDir, id);
const out = {
  fileBytes: 0,
  messages: messages.length,
  saveMs: [] as number[],
  saveCpuMs: [] as number[],
  loadMs: [] as number[],
  loadCpuMs: [] as number[],
  savePeakMb: [] as number[],
  loadPeakMb: [] as number[],
  steps: {} as Record<string, number>,
};
for (let i = 0; i < reps; i++) {
  const s = await measured(() => saveSnapshot(projectDir, snapshot));
  out.saveMs.push(s.ms);
  out.saveCpuMs.push(s.cpuMs);
  out.savePeakMb.push(s.peakMb);
}
for (let i = 0; i < reps; i++) {
  // The loaded snapshot is dropped at once, as the measured operation ends.
  const l = await measured(async () => void (await loadSnapshot(projectDir, id)));
  out.loadMs.push(l.ms);
  out.loadCpuMs.push(l.cpuMs);
  out.loadPeakMb.push(l.peakMb);
}
const file = sessionPaths(projectDir, id).snapshot;
out.fileBytes = (await stat(file)).size;

const parsed = SnapshotSchema.parse(snapshot);
const { messages: parsedMessages, ...header } = parsed;
const parsedHeader = SnapshotHeaderSchema.parse(header);
// One buffer for every encoding, as the store keeps one across saves. The messages' JSON is cached
// after the first encoding, as in a running session where each request has already serialized them.
const into = Buffer.allocUnsafe(out.fileBytes + (out.fileBytes >> 3));
const bytesOnDisk = Buffer.from(encodeSnapshot(parsedHeader, parsedMessages, into));
const text = (await readFile(file)).toString("latin1");
const raw: unknown = JSON.parse(text);
out.steps = {
  save_validate_ms: await step(() => SnapshotHeaderSchema.safeParse(header)),
  save_pairing_ms: await step(() => findToolPairingError(parsedMessages)),
  save_encode_ms: await step(() => encodeSnapshot(parsedHeader, parsedMessages, into)),
  save_write_fsync_ms: await step(() => writeFileAtomic(`${file}.bench`, bytesOnDisk)),
  // As the store reads: the whole file decoded as UTF-8 in one pass.
  load_read_decode_ms: await step(() => readFile(file, "utf8")),
  load_json_parse_ms: await step(() => JSON.parse(text)),
  // safeParse builds a new object and leaves its input alone, so one parsed copy serves every run.
  load_validate_ms: await step(() => SnapshotSchema.safeParse(raw)),
};
process.stdout.write(`${JSON.stringify(out)}\n`);

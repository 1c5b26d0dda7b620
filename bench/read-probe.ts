// Child process for the read_file row: one call of the real tool on one file, in a fresh process.
// Contract: prints one JSON line {ms, readPeakMb, bytes}; `ms` is the executeToolCall alone, and
// `readPeakMb` is how far VmHWM rose above the RSS just before the call (the peak is reset first),
// i.e. what the read itself cost in memory, apart from Node and the loaded modules.
//   node out/bench/read-probe.js <projectDir> <relative file>
import { executeToolCall } from "../src/tools/registry.js";
import { readFileTool } from "../src/tools/file/read-file.js";
import type { Tool } from "../src/tools/types.js";
import { probeContext } from "./probe-context.js";
import { resetPeakRss, selfRss } from "./procs.js";

const [projectDir, file] = process.argv.slice(2) as [string, string];
const ctx = probeContext(projectDir);
const call = { id: "call_probe", type: "function" as const, function: { name: "read_file", arguments: JSON.stringify({ path: file }) } };

const canReset = resetPeakRss();
const before = selfRss().rssMb;
const t0 = performance.now();
const result = await executeToolCall(call, [readFileTool as Tool], ctx);
const ms = performance.now() - t0;
const after = selfRss();
if (result.isError) {
  process.stderr.write(`read_file failed: ${result.content}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ ms, readPeakMb: canReset ? after.hwmMb - before : Number.NaN, bytes: Buffer.byteLength(result.content) })}\n`);

// Child process for the grep rows: one grep call of the real tool over one tree, in a fresh process.
// Contract: prints one JSON line {ms, cpuMs, searchPeakMb, matches}; `ms` and `cpuMs` (user + system) are
// the executeToolCall alone, and
// `searchPeakMb` is how far VmHWM rose above the RSS just before the call (the peak is reset first),
// i.e. what the search itself cost in memory, apart from Node and the loaded modules. A result with a
// cursor (more than one page) is a failure: the rows compare whole searches.
//   node out/bench/grep-probe.js <projectDir> <pattern> [<path>]
import { executeToolCall } from "../src/tools/registry.js";
import { grepTool } from "../src/tools/search/tools.js";
import type { Tool } from "../src/tools/types.js";
import { probeContext } from "./probe-context.js";
import { resetPeakRss, selfRss } from "./procs.js";

const [projectDir, pattern, path] = process.argv.slice(2) as [string, string, string | undefined];
const ctx = probeContext(projectDir);
const args = JSON.stringify(path === undefined ? { pattern } : { pattern, path });
const call = { id: "call_probe", type: "function" as const, function: { name: "grep", arguments: args } };

// The search modules load on the first call; load them first, so the figures are the search's own.
await import("../src/tools/search/grep-search.js");
const canReset = resetPeakRss();
const before = selfRss().rssMb;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const result = await executeToolCall(call, [grepTool as Tool], ctx);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const after = selfRss();
if (result.isError || result.content.includes('{"cursor"')) {
  process.stderr.write(`grep did not finish in one page: ${result.content.slice(-300)}\n`);
  process.exit(1);
}
const matches = result.content.split("\n").length - 1;
process.stdout.write(`${JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, searchPeakMb: canReset ? after.hwmMb - before : Number.NaN, matches })}\n`);

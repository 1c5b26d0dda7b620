// The commands section: run_command's overhead over `bash -c true`, sandboxed or not, and the memory of a
// command printing 100 MB.
import { BIG_OUTPUT_BYTES, measureBigOutput, measureCommandOverhead } from "../commands.js";
import { fmt, mb, median, type Row } from "../stats.js";
import type { BenchSection } from "./section.js";

export const commandsSection: BenchSection = {
  name: "commands",
  title: "9. run_command",
  async run({ log }) {
    const o = await measureCommandOverhead({ runs: 30, log });
    const big = await measureBigOutput({ runs: 3, log });
    const bash = median(o.bashMs);
    const rows: Row[] = [
      { key: "commands.bash", label: "`bash -c true` spawned directly", value: bash, unit: "ms", note: `${o.bashMs.length} runs` },
      { key: "commands.full", label: "run_command `true`, --access full", value: median(o.fullMs), unit: "ms", note: `+${fmt(median(o.fullMs) - bash)} ms` },
      { key: "commands.full.ratio", label: "  ratio to `bash -c true`", value: median(o.fullMs) / bash, unit: "x" },
    ];
    if (o.sandboxedMs.length > 0) {
      const sandboxed = median(o.sandboxedMs);
      rows.push(
        { key: "commands.bwrap", label: "bubblewrap + `bash -c true` spawned directly (hel's bwrap arguments)", value: median(o.bwrapMs), unit: "ms", note: `+${fmt(median(o.bwrapMs) - bash)} ms` },
        { key: "commands.sandboxed", label: "run_command `true`, sandboxed (--access edit)", value: sandboxed, unit: "ms", note: `hel's own part: ${fmt(sandboxed - median(o.bwrapMs))} ms` },
        { key: "commands.sandboxed.added", label: "  added to `bash -c true`", value: sandboxed - bash, unit: "ms", target: { kind: "under", limit: 15, unit: "ms" } },
        { key: "commands.sandboxed.ratio", label: "  ratio to `bash -c true`", value: sandboxed / bash, unit: "x" },
      );
    }
    rows.push(
      {
        key: "commands.big.peak_rss",
        label: `peak RSS of hel, a command printing ${BIG_OUTPUT_BYTES / 1e6} MB${big.sandboxed ? " (sandboxed)" : ""}`,
        value: median(big.peakRssMb),
        unit: "MB",
        target: { kind: "under", limit: 100, unit: "MB" },
        note: `max ${fmt(Math.max(...big.peakRssMb))} MB; spill file ${mb(big.spillBytes)}`,
        extra: { spill_bytes: big.spillBytes },
      },
      { key: "commands.big.wall", label: "  whole run, spawn → exit", value: median(big.wallMs), unit: "ms", note: `${big.wallMs.length} runs` },
    );
    return {
      title: "8. run_command: overhead of `true`, and a command printing 100 MB",
      rows,
      footnotes: [
        "Overhead: in-process runCommandTool.run vs child_process spawns, interleaved, each timed from the call to its return / the close of the pipes.",
        "100 MB: the built CLI against the simulator, one run_command call, then an answer; the whole output streams to spill/.",
      ],
    };
  },
};

// The grep section: hel's grep tool against GNU grep -rnI over generated trees and node_modules.
import { PROJECT_ROOT } from "../../scripts/hel-bin.js";
import { measureGrep } from "../grep.js";
import { fmt, median, type Row } from "../stats.js";
import type { BenchSection } from "./section.js";

export const grepSection: BenchSection = {
  name: "grep",
  title: "8. grep over large trees",
  async run({ log }) {
    const trees = await measureGrep({ runs: 5, projectRoot: PROJECT_ROOT, log });
    const rows: Row[] = [];
    for (const t of trees) {
      const key = t.key;
      const call = median(t.helCallMs);
      const grep = median(t.grepWallMs);
      const what = `${t.label}, ${t.matches} matches`;
      const callCpu = median(t.helCallCpuMs);
      const grepCpu = median(t.grepCpuMs);
      rows.push({
        key: `grep.${key}.hel_call`,
        label: `${what}: hel grep, the call`,
        value: call,
        unit: "ms",
        note: `${t.helCallMs.length} runs; CPU ${fmt(callCpu, 0)} ms; whole process ${fmt(median(t.helWallMs), 0)} ms`,
        extra: { cpu_ms: callCpu, hel_wall_ms: median(t.helWallMs) },
      });
      rows.push({ key: `grep.${key}.grep`, label: `${what}: grep -rnI, spawn → exit`, value: grep, unit: "ms", note: `${t.grepWallMs.length} runs; CPU ${fmt(grepCpu, 0)} ms`, extra: { cpu_ms: grepCpu } });
      rows.push({
        key: `grep.${key}.ratio`,
        label: "  ratio hel's call / grep -rnI",
        value: call / grep,
        unit: "x",
        target: { kind: "under", limit: 2, unit: "x" },
        note: `CPU ${fmt(callCpu / grepCpu, 2)}×; whole hel process / grep ${fmt(median(t.helWallMs) / grep, 2)}×`,
        extra: { cpu_ratio: callCpu / grepCpu, wall_ratio: median(t.helWallMs) / grep },
      });
      rows.push({
        key: `grep.${key}.rss`,
        label: "  peak RSS: hel process (grep -rnI)",
        value: median(t.helPeakRssMb),
        unit: "MB",
        note: `grep ${fmt(median(t.grepPeakRssMb))} MB; the search itself +${fmt(median(t.helSearchPeakMb), 2)} MB`,
        extra: { grep_peak_rss_mb: median(t.grepPeakRssMb), search_peak_mb: median(t.helSearchPeakMb) },
      });
    }
    const [small, big] = trees;
    rows.push({
      key: "grep.rss.ratio",
      label: "peak RSS of hel, 50,000 / 5,000 files",
      value: median(big!.helPeakRssMb) / median(small!.helPeakRssMb),
      unit: "x",
      target: { kind: "about", value: 1, tolerance: 0.1 },
    });
    return {
      title: "7. grep over large trees: hel's grep tool (fresh child process each) vs GNU grep -rnI on the same files",
      rows,
      footnotes: [
        "Generated trees: ~2 KB files of 43 lines, 100 per directory; pattern /needle_[0-9]+/ matches in 1 file of 997, so both read every file.",
        "node_modules: hel's grep given path node_modules (so it walks it; .gitignore files inside packages still apply), grep -rnI on the same directory.",
        "The call = executeToolCall alone, the search thread already started and its modules loaded; whole process adds Node's start-up and loading hel's modules.",
        "CPU = process.cpuUsage() over the call for hel, time(1) %U+%S (10 ms steps) for grep: on a shared machine, the fairer comparison.",
        "The search itself = VmHWM after the call − VmRSS before it, with the peak reset (/proc/self/clear_refs) just before.",
      ],
    };
  },
};

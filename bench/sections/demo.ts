// The demo section: the built CLI's whole run of fixtures/demo's edit task, its time and peak memory.
import { rssMethod } from "../procs.js";
import { measureDemo } from "../startup.js";
import { fmt, median } from "../stats.js";
import type { BenchSection } from "./section.js";

export const demoSection: BenchSection = {
  name: "demo",
  title: "3. Whole run: the demo edit task",
  async run({ log }) {
    const r = await measureDemo({ runs: 5, log });
    return {
      title: `3. Whole run: fixtures/demo edit task, policy "demo" (${r.requests} requests)`,
      rows: [
        { key: "demo.wall", label: "wall time, spawn → exit", value: median(r.wallMs), unit: "ms", note: `${r.wallMs.length} runs; CPU ${fmt(median(r.cpuMs), 0)} ms`, extra: { cpu_ms: median(r.cpuMs) } },
        { key: "demo.peak_rss", label: "peak RSS of the hel process", value: median(r.peakRssMb), unit: "MB", target: { kind: "under", limit: 100, unit: "MB" }, note: `max ${fmt(Math.max(...r.peakRssMb))} MB` },
      ],
      footnotes: [
        rssMethod() === "gnu-time"
          ? "Peak RSS: GNU /usr/bin/time -f %M (kernel ru_maxrss of the child); the wall time includes time(1)'s own exec (~1 ms)."
          : "Peak RSS: /proc/<pid>/status VmHWM polled every 1 ms (GNU time not found); may miss growth in the last millisecond.",
      ],
    };
  },
};

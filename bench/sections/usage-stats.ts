// The stats section: `hel stats` over a thousand saved sessions.
import { measureUsageStats } from "../usage-stats.js";
import { fmt, mb, median } from "../stats.js";
import type { BenchSection } from "./section.js";

export const usageStatsSection: BenchSection = {
  name: "stats",
  title: "13. hel stats over 1,000 sessions",
  async run({ log }) {
    const r = await measureUsageStats({ reps: 7, log });
    const wall = median(r.wallMs);
    return {
      title: `13. \`hel stats --json\` over ${r.sessions.toLocaleString("en-US")} saved sessions (${r.requests.toLocaleString("en-US")} requests, ${mb(r.bytes)} of snapshots; built CLI, spawn → exit)`,
      rows: [
        {
          key: "stats.1000",
          label: `${r.sessions.toLocaleString("en-US")} sessions, ${r.requests.toLocaleString("en-US")} requests`,
          value: wall,
          unit: "ms",
          target: { kind: "under", limit: 1000, unit: "ms" },
          note: `CPU ${fmt(median(r.cpuMs), 0)} ms · peak RSS ${fmt(median(r.peakRssMb), 0)} MB · ${r.wallMs.length} runs`,
          extra: { cpu_ms: median(r.cpuMs), peak_rss_mb: median(r.peakRssMb), bytes: r.bytes },
        },
      ],
      footnotes: ["Each snapshot's first line (its header, with the requests it keeps) is all stats reads; the messages after it are never read.", "One unmeasured run first."],
    };
  },
};

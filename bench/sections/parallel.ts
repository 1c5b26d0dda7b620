// The parallel section: three subagents at once against one after another, and their first requests' cache hits.
import { ANSWER_DELAY_MS, measureParallel } from "../parallel.js";
import { fmt, median, type Section } from "../stats.js";
import type { BenchSection } from "./section.js";

/** The row of the children's first requests' cache-hit shares: their median, at least 90 %, and the lowest. */
export function firstHitShareRow(key: string, label: string, shares: readonly number[]) {
  return {
    key,
    label,
    value: median([...shares]),
    unit: "%",
    target: { kind: "atLeast", limit: 90, unit: "%" },
    note: `${shares.length} requests; lowest ${fmt(Math.min(...shares))} %`,
    extra: { min_percent: Math.min(...shares) },
  } as const;
}

export const parallelSection: BenchSection = {
  name: "parallel",
  title: "10. Parallel subagents",
  async run({ log }): Promise<Section> {
    const r = await measureParallel({ runs: 5, log });
    const together = median(r.parallel.childrenMs);
    const apart = median(r.sequence.childrenMs);
    const shares = r.firstHitShares.map((s) => s * 100);
    return {
      title: `9. Parallel subagents: three \`full\` children, every answer ${ANSWER_DELAY_MS} ms late (built CLI, ${r.requestsPerRun} requests a run)`,
      rows: [
        { key: "parallel.children.together", label: "three children at once: first child request → parent's next request", value: together, unit: "ms", note: `${r.parallel.childrenMs.length} runs` },
        { key: "parallel.children.apart", label: "the same three one after another", value: apart, unit: "ms", note: `${r.sequence.childrenMs.length} runs` },
        { key: "parallel.children.ratio", label: "  ratio at once / one after another", value: together / apart, unit: "x", target: { kind: "under", limit: 0.45, unit: "x" } },
        {
          key: "parallel.wall",
          label: "whole run at once, spawn → exit",
          value: median(r.parallel.wallMs),
          unit: "ms",
          note: `one after another ${fmt(median(r.sequence.wallMs), 0)} ms`,
          extra: { sequence_wall_ms: median(r.sequence.wallMs) },
        },
        {
          key: "parallel.peak_rss",
          label: "peak RSS of hel, three children at once",
          value: median(r.parallel.peakRssMb),
          unit: "MB",
          note: `one after another ${fmt(median(r.sequence.peakRssMb))} MB`,
          extra: { sequence_peak_rss_mb: median(r.sequence.peakRssMb) },
        },
        firstHitShareRow("parallel.first_hit_share", "cache-hit share of each child's first request (at once)", shares),
      ],
      footnotes: [
        "The parent reads notes.md (60 lines), then sends one message with three delegate_task calls and two read_file calls: at once = the",
        "three delegations side by side; one after another = a read_file between each two, so each runs alone. Each child reads one file, then answers.",
        "Times are arrivals at the simulator (in the bench process); the two shapes alternate, one unmeasured run of each first.",
      ],
    };
  },
};

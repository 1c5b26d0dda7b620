// The isolated section: three writers at once, each in its own worktree and merged back, against one
// after another, and the cache hits of an isolated `full` child's first request.
import { measureIsolated } from "../isolated.js";
import { ANSWER_DELAY_MS } from "../parallel.js";
import { firstHitShareRow } from "./parallel.js";
import { median } from "../stats.js";
import type { BenchSection } from "./section.js";

export const isolatedSection: BenchSection = {
  name: "isolated",
  title: "14. Isolated writers",
  async run({ log }) {
    const r = await measureIsolated({ runs: 3, log });
    const together = median(r.parallelMs);
    const apart = median(r.sequenceMs);
    const shares = r.firstHitShares.map((s) => s * 100);
    return {
      title: `14. Isolated writers: three \`full\` children each in its own worktree, every answer ${ANSWER_DELAY_MS} ms late (built CLI, ${r.requestsPerRun} requests a run)`,
      rows: [
        { key: "isolated.children.together", label: "three writers at once: first child request → parent's next request", value: together, unit: "ms", note: `${r.parallelMs.length} runs, every edit landed` },
        { key: "isolated.children.apart", label: "the same three one after another", value: apart, unit: "ms", note: `${r.sequenceMs.length} runs, every edit landed` },
        { key: "isolated.children.ratio", label: "  ratio at once / one after another", value: together / apart, unit: "x", target: { kind: "under", limit: 0.45, unit: "x" } },
        firstHitShareRow("isolated.first_hit_share", "cache-hit share of an isolated full child's first request", shares),
      ],
      footnotes: [
        "The parent sends one message with three delegate_task calls (isolation worktree) and two read_file calls: at once = the three side by side;",
        "one after another = a read_file between each two. Each child edits its own file in its worktree, then answers; a run counts only when",
        "every edit is in the project and every result says applied. The times include making the worktrees and merging them.",
      ],
    };
  },
};

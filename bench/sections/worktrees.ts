// The worktrees section: making an isolated writer's worktree against `git worktree add` alone.
import { fmt, median } from "../stats.js";
import { measureWorktrees } from "../worktrees.js";
import type { BenchSection } from "./section.js";

export const worktreesSection: BenchSection = {
  name: "worktrees",
  title: "13. Worktrees",
  async run({ log }) {
    const ten = await measureWorktrees({ files: 10_000, rounds: 3, log });
    const hel = median(ten.helMs);
    const git = median(ten.gitMs);
    return {
      title: "13. Worktrees (.hel/worktrees) beside `git worktree add` in the same repository",
      rows: [
        { key: "worktrees.10k.make", label: "10,000 files, 3 edited and 1 untracked: make a worktree", value: hel, unit: "ms", note: `${ten.helMs.length} rounds` },
        { key: "worktrees.10k.make_ratio", label: "  ratio to git worktree add", value: hel / git, unit: "x", target: { kind: "under", limit: 1.5, unit: "x" }, note: `git ${fmt(git, 0)} ms` },
      ],
      footnotes: ["hel's worktree holds the working tree as it is (a snapshot commit on top of HEAD); git's holds HEAD."],
    };
  },
};

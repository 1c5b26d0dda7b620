// The checkpoints section: hel's file checkpoints against git add -A && git write-tree on the same trees.
import { measureCheckpoints } from "../checkpoints.js";
import { fmt, median } from "../stats.js";
import type { BenchSection } from "./section.js";

export const checkpointsSection: BenchSection = {
  name: "checkpoints",
  title: "11. File checkpoints",
  async run({ log }) {
    const ten = await measureCheckpoints({ files: 10_000, rounds: 7, log });
    const fifty = await measureCheckpoints({ files: 50_000, rounds: 0, log });
    const next = median(ten.nextMs);
    const gitNext = median(ten.gitNextMs);
    return {
      title: "11. File checkpoints (.hel/checkpoints) beside `git add -A && git write-tree` on a scratch copy of the same tree",
      rows: [
        { key: "checkpoints.10k.next", label: "10,000 files, a turn that changed 3: checkpoint", value: next, unit: "ms", target: { kind: "under", limit: 150, unit: "ms" }, note: `${ten.nextMs.length} turns` },
        { key: "checkpoints.10k.next_ratio", label: "  ratio to git add -A && git write-tree", value: next / gitNext, unit: "x", note: `git ${fmt(gitNext, 0)} ms` },
        { key: "checkpoints.10k.first", label: "10,000 files: the first checkpoint", value: ten.firstMs, unit: "ms", note: `git ${fmt(ten.gitFirstMs, 0)} ms` },
        { key: "checkpoints.50k.first", label: "50,000 files: the first checkpoint", value: fifty.firstMs, unit: "ms", note: `git ${fmt(fifty.gitFirstMs, 0)} ms` },
        { key: "checkpoints.50k.first_ratio", label: "  ratio to git add -A && git write-tree", value: fifty.firstMs / fifty.gitFirstMs, unit: "x" },
      ],
      footnotes: ["Files of about 1 KB in folders of 10; each turn edits the same three files in both trees."],
    };
  },
};

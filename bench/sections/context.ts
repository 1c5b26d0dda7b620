// The context section: the episode policy's build episode folded or left in place, and the time of a fold
// and a compaction of a 10 MB session.
import { measureEpisode, measureViewChanges } from "../context.js";
import { fmt, median, type Row } from "../stats.js";
import type { BenchSection } from "./section.js";

export const contextSection: BenchSection = {
  name: "context",
  title: "7. Context economy: fold and compaction",
  async run() {
    const e = await measureEpisode();
    const v = await measureViewChanges();
    const usd = (x: number): string => `$${x.toFixed(4)}`;
    const armRow = (name: "folded" | "inline", label: string): Row => ({
      key: `context.next10.${name}`,
      label: `next 10 requests, ${label}: prompt tokens`,
      value: e[name].promptTokens,
      unit: "x",
      note: `${fmt(e[name].hitShare * 100)}% from the cache · ${usd(e[name].costUsd)}`,
      extra: { hit_share: e[name].hitShare, cost_usd: e[name].costUsd },
    });
    return {
      title: "7. Context economy: the seed article's build episode, folded or left in place; fold and compaction of a 10 MB session",
      rows: [
        { key: "context.episode.tokens", label: "build episode (reads and results)", value: e.episodeTokens, unit: "x", note: "tokens" },
        { key: "context.note.tokens", label: "its fold note", value: e.noteTokens, unit: "x", note: `tokens · ${fmt(e.episodeTokens / e.noteTokens, 0)}× smaller` },
        armRow("folded", "after the fold"),
        armRow("inline", "episode left in place"),
        {
          key: "context.fold_10mb",
          label: `fold in a 10 MB session (${v.messages} msgs): new view + archive + snapshot saved`,
          value: median(v.foldMs),
          unit: "ms",
          target: { kind: "under", limit: 100, unit: "ms" },
          note: `${v.foldMs.length} reps`,
        },
        {
          key: "context.compact_10mb",
          label: "compaction of the same session: new view + archive + snapshot saved",
          value: median(v.compactMs),
          unit: "ms",
          target: { kind: "under", limit: 100, unit: "ms" },
          note: `${v.compactMs.length} reps, summary request not included`,
        },
      ],
      footnotes: [
        "Episode: three build logs read with read_file by the simulator's episode policy, then folded (or not), then ten more instructions answered",
        "at once; tokens counted by the simulator's tokenizer; cost at deepseek-flash off-peak prices ($0.003 hit, $0.15 miss, $0.60 output per 1M).",
      ],
    };
  },
};

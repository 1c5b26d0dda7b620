// The build-loop section: the build-loop policy's task played inline, auto-folded and compacted, in tokens
// and dollars.
import { BUILD_LOOP_ARMS, measureBuildLoop, type BuildLoopArm, type BuildLoopResult } from "../build-loop.js";
import { fmt, type Row } from "../stats.js";
import type { BenchSection } from "./section.js";

export const buildLoopSection: BenchSection = {
  name: "build-loop",
  title: "7b. The build loop: inline, auto-folded, compacted",
  async run() {
    const arms = Object.keys(BUILD_LOOP_ARMS) as BuildLoopArm[];
    const results = {} as Record<BuildLoopArm, BuildLoopResult>;
    for (const arm of arms) results[arm] = await measureBuildLoop(arm);
    const inline = results.inline;
    const rows: Row[] = arms.map((arm) => {
      const r = results[arm];
      return {
        key: `build_loop.${arm}.prompt_tokens`,
        label: `${arm}: prompt tokens over the task (uncached · dollars · largest request · requests)`,
        value: r.promptTokens,
        unit: "tokens",
        note: `${fmt(r.uncachedTokens, 0)} uncached · $${r.costUsd.toFixed(6)} · largest ${fmt(r.largestPrompt, 0)} · ${r.requests} requests`,
        extra: { uncached_tokens: r.uncachedTokens, cost_usd: r.costUsd, largest_prompt: r.largestPrompt, requests: r.requests, after_prompt_tokens: r.afterPromptTokens },
      };
    });
    for (const arm of ["auto-fold", "compacted"] as const) {
      const r = results[arm];
      rows.push({
        key: `build_loop.${arm}.after_ratio`,
        label: `${arm} / inline: prompt tokens of the 10 steps after the episode (dollars, uncached, extra requests)`,
        value: r.afterPromptTokens / inline.afterPromptTokens,
        unit: "x",
        ...(arm === "auto-fold" ? { target: { kind: "under" as const, limit: 0.5, unit: "x" as const } } : {}),
        note: `${fmt(r.afterPromptTokens, 0)} vs ${fmt(inline.afterPromptTokens, 0)} · dollars ${fmt(r.costUsd / inline.costUsd, 2)}× · uncached ${fmt(r.uncachedTokens / inline.uncachedTokens, 2)}× · ${r.requests - inline.requests >= 0 ? "+" : ""}${r.requests - inline.requests} requests`,
      });
    }
    rows.push({
      key: "build_loop.kept_log_tokens",
      label: "one failing build's log: tokens the view keeps of it (the whole log is in spill/)",
      value: inline.keptLogTokens,
      unit: "tokens",
      note: `of ${fmt(inline.logTokens, 0)} · ${fmt(inline.keptLogTokens / inline.logTokens, 2)}×`,
    });
    return {
      title: "7b. The build loop of the seed article (three failing builds with long logs, a passing one, ten steps): inline, auto-folded, compacted at 10,000",
      rows,
      footnotes: ["Simulator's build-loop policy and tokenizer; dollars at deepseek-flash off-peak prices ($0.003 hit, $0.15 miss, $0.60 output per 1M)."],
    };
  },
};

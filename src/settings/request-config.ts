// What a run asks of the model: a resumed session keeps its model and effort unless a flag says
// otherwise, the output limit follows the effort (and the provider), and compaction follows --compact-at.
import { defaultMaxTokens } from "../agent/request.js";
import { defaultCompactAt } from "../agent/context/compaction.js";
import type { RequestConfig, RunRequestConfig } from "../session/snapshot-format.js";
import type { RunOptions } from "./run-options.js";
import type { Effort } from "../wire/messages.js";

/**
 * DeepSeek's output limit follows its thinking mode, whose reasoning counts against it. Another server
 * is sent no thinking field, so it gets the plain limit, and never more than a quarter of a window the
 * user gave: a server that adds max_tokens to the prompt (vLLM) would otherwise refuse every request.
 */
function defaultOutputLimit(effort: Effort, options: RunOptions): number {
  if (options.provider === "deepseek") return defaultMaxTokens(effort);
  const plain = defaultMaxTokens("none");
  return options.contextWindow ? Math.min(plain, Math.floor(options.contextWindow / 4)) : plain;
}

/**
 * This run's request settings: a resumed session keeps its model and effort unless a flag says
 * otherwise (the environment's and the config files' are defaults for new sessions), the output
 * limit follows the effort unless --max-output-tokens is given, and compaction follows --compact-at
 * (by default 80% of the flags' model's window).
 */
export function requestConfigFor(options: RunOptions): (stored: RequestConfig | null) => RunRequestConfig {
  const compactAt = options.compactAt ?? defaultCompactAt(options.model, options.contextWindow);
  return (stored) => {
    const model = stored && options.origin.model !== "flag" ? stored.model : options.model;
    const effort = stored?.effort && options.origin.effort !== "flag" ? stored.effort : options.effort;
    return {
      model,
      max_output_tokens: options.maxOutputTokens ?? defaultOutputLimit(effort, options),
      max_steps: options.maxSteps,
      effort,
      access: options.access,
      delegate: options.delegate,
      compaction: { enabled: compactAt > 0, threshold_tokens: compactAt > 0 ? compactAt : null },
    };
  };
}

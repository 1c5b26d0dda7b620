// Usage totals: the five figures `--json` and records report, summed over requests.
import type { Usage } from "../wire/messages.js";
import type { AgentEvent } from "./events.js";

export interface UsageTotals {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  prompt_cache_hit_tokens: number;
  prompt_cache_miss_tokens: number;
}

export const emptyTotals = (): UsageTotals => ({
  requests: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  prompt_cache_hit_tokens: 0,
  prompt_cache_miss_tokens: 0,
});

export function addUsage(totals: UsageTotals, usage: Usage | undefined): UsageTotals {
  return {
    requests: totals.requests + 1,
    prompt_tokens: totals.prompt_tokens + (usage?.prompt_tokens ?? 0),
    completion_tokens: totals.completion_tokens + (usage?.completion_tokens ?? 0),
    prompt_cache_hit_tokens: totals.prompt_cache_hit_tokens + (usage?.prompt_cache_hit_tokens ?? 0),
    prompt_cache_miss_tokens: totals.prompt_cache_miss_tokens + (usage?.prompt_cache_miss_tokens ?? 0),
  };
}

export function sumTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    requests: a.requests + b.requests,
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    prompt_cache_hit_tokens: a.prompt_cache_hit_tokens + b.prompt_cache_hit_tokens,
    prompt_cache_miss_tokens: a.prompt_cache_miss_tokens + b.prompt_cache_miss_tokens,
  };
}

export const hitRatio = (u: { prompt_cache_hit_tokens: number; prompt_tokens: number }): number =>
  u.prompt_tokens === 0 ? 0 : u.prompt_cache_hit_tokens / u.prompt_tokens;

/**
 * Sums the usage of every request an instruction made, its children's included, by reading the
 * event stream: it restarts at each parent turn_start.
 */
export function instructionUsage(): { observe(event: AgentEvent): void; totals(): UsageTotals } {
  let totals = emptyTotals();
  return {
    observe(event) {
      if (event.type === "turn_start" && event.agent === "parent") totals = emptyTotals();
      if (event.type === "response" && event.usage) totals = addUsage(totals, event.usage);
    },
    totals: () => totals,
  };
}

// Usage totals: the five figures `--json`, records and snapshots report, summed over requests, and
// with a cost beside them (Spend). One schema for every file that stores them.
import { z } from "../zod.js";
import type { Usage } from "../wire/messages.js";

const count = z.number().int().nonnegative();

export const UsageTotalsSchema = z.object({
  requests: count,
  prompt_tokens: count,
  completion_tokens: count,
  prompt_cache_hit_tokens: count,
  prompt_cache_miss_tokens: count,
});
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;

/** Totals and their cost in US dollars; null when a request's model has no price. */
export const SpendSchema = UsageTotalsSchema.extend({ cost_usd: z.number().nonnegative().nullable() });
export type Spend = z.infer<typeof SpendSchema>;

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

/** Just the five figures of anything that carries them (a Spend, say). */
export const totalsOf = (u: UsageTotals): UsageTotals => sumTotals(emptyTotals(), u);

export function sumTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    requests: a.requests + b.requests,
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    prompt_cache_hit_tokens: a.prompt_cache_hit_tokens + b.prompt_cache_hit_tokens,
    prompt_cache_miss_tokens: a.prompt_cache_miss_tokens + b.prompt_cache_miss_tokens,
  };
}

export const hitRatio = (u: { prompt_cache_hit_tokens: number; prompt_tokens: number }): number => (u.prompt_tokens === 0 ? 0 : u.prompt_cache_hit_tokens / u.prompt_tokens);

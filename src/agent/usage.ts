// Usage totals: the five figures `--json`, records and snapshots report, summed over requests, and
// with a cost beside them (Spend). One schema for every file that stores them.
import { z } from "../zod.js";
import type { AssistantMessage, Usage } from "../wire/messages.js";
import { estimateTokens } from "./meter.js";

const count = z.number().int().nonnegative();

export const UsageTotalsSchema = z.object({
  requests: count,
  prompt_tokens: count,
  completion_tokens: count,
  prompt_cache_hit_tokens: count,
  prompt_cache_miss_tokens: count,
  /** Of `requests`, those answered without usage, whose tokens are hel's estimate; absent when none. */
  estimated_requests: count.optional(),
});
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;

/** Totals and their cost in US dollars; null when a request's model has no price. */
export const SpendSchema = UsageTotalsSchema.extend({ cost_usd: z.number().nonnegative().nullable() });
export type Spend = z.infer<typeof SpendSchema>;

/**
 * One answered request, as the session keeps it for views and stats: which agent sent it, for which
 * model, when the answer came, its tokens and what it cost then (null: the model had no price).
 */
export const RequestUsageSchema = z.object({
  agent: z.enum(["parent", "child"]),
  /** The child's number, for a child's request. */
  delegation: z.number().int().positive().optional(),
  model: z.string(),
  at: z.iso.datetime({ offset: true }),
  prompt_tokens: count,
  prompt_cache_hit_tokens: count,
  prompt_cache_miss_tokens: count,
  completion_tokens: count,
  /** The server reported no usage: these tokens are hel's estimate. */
  estimated: z.literal(true).optional(),
  cost_usd: z.number().nonnegative().nullable(),
});
export type RequestUsage = z.infer<typeof RequestUsageSchema>;

export const emptyTotals = (): UsageTotals => ({
  requests: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  prompt_cache_hit_tokens: 0,
  prompt_cache_miss_tokens: 0,
});

export function addUsage(totals: UsageTotals, usage: Usage | undefined): UsageTotals {
  return sumTotals(totals, {
    requests: 1,
    prompt_tokens: usage?.prompt_tokens ?? 0,
    completion_tokens: usage?.completion_tokens ?? 0,
    prompt_cache_hit_tokens: usage?.prompt_cache_hit_tokens ?? 0,
    prompt_cache_miss_tokens: usage?.prompt_cache_miss_tokens ?? 0,
    ...(usage?.estimated ? { estimated_requests: 1 } : {}),
  });
}

/**
 * The usage of a response that reported none: the prompt as estimated before it was sent (none of it
 * taken as cached), the answer's text as written, marked estimated.
 */
export function estimatedUsage(promptTokens: number, answer: AssistantMessage): Usage {
  const calls = (answer.tool_calls ?? []).map((c) => c.function.name + c.function.arguments).join("");
  const completion = estimateTokens((answer.content ?? "") + (answer.reasoning_content ?? "") + calls);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
    prompt_cache_hit_tokens: 0,
    prompt_cache_miss_tokens: promptTokens,
    estimated: true,
  };
}

/** Just the five figures of anything that carries them (a Spend, say). */
export const totalsOf = (u: UsageTotals): UsageTotals => sumTotals(emptyTotals(), u);

export function sumTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  const estimated = (a.estimated_requests ?? 0) + (b.estimated_requests ?? 0);
  return {
    requests: a.requests + b.requests,
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    prompt_cache_hit_tokens: a.prompt_cache_hit_tokens + b.prompt_cache_hit_tokens,
    prompt_cache_miss_tokens: a.prompt_cache_miss_tokens + b.prompt_cache_miss_tokens,
    ...(estimated > 0 ? { estimated_requests: estimated } : {}),
  };
}

export const hitRatio = (u: { prompt_cache_hit_tokens: number; prompt_tokens: number }): number => (u.prompt_tokens === 0 ? 0 : u.prompt_cache_hit_tokens / u.prompt_tokens);

// What a run's requests cost, two ways: in dollars at DeepSeek's off-peak prices (the price table hel
// itself uses, without the peak-hour rule, so an offline summary does not depend on the hour it ran),
// and in the seed article's "fresh-token equivalents", where a prompt token read from the cache
// counts 0.1 and one written into it (a cache miss) 1.25; output tokens are not in that unit.
import { DEFAULT_PRICES, requestCost, type PriceTable } from "../src/model/prices.js";
import type { RequestLine } from "./records.js";

export const FRESH_READ = 0.1;
export const FRESH_WRITE = 1.25;

const OFF_PEAK: PriceTable = { ...DEFAULT_PRICES, peak: null };
const ANY_TIME = new Date(0);

/** Dollars for the answered requests of `model`; null when the price table has no price for it. */
export function offPeakCost(requests: readonly Pick<RequestLine, "usage">[], model: string): number | null {
  let sum = 0;
  for (const r of requests) {
    if (!r.usage) continue;
    const cost = requestCost(r.usage, model, ANY_TIME, OFF_PEAK);
    if (cost === null) return null;
    sum += cost;
  }
  return sum;
}

export function freshEquivalent(t: { prompt_cache_hit_tokens: number; prompt_cache_miss_tokens: number }): number {
  return t.prompt_cache_hit_tokens * FRESH_READ + t.prompt_cache_miss_tokens * FRESH_WRITE;
}

/** The largest prompt any answered request carried. */
export function peakPrompt(requests: readonly Pick<RequestLine, "usage">[]): number {
  return requests.reduce((m, r) => Math.max(m, r.usage?.prompt_tokens ?? 0), 0);
}

// --max-cost: whether the next request may be sent. Pure: the spend so far, the input tokens the
// request would carry (the meter's estimate) priced as if none were cached, and the limit in; the
// line that says why it may not, or null. Its answer is not known before it comes, so only the
// prompt is counted: a request that passes may still end a little past the limit.
import { formatUsd, requestCost, type PriceTable } from "../model/prices.js";

export interface SpendCheck {
  /** US dollars spent so far; null when some request's model had no price. */
  spent: number | null;
  promptTokens: number;
  model: string;
  maxCost: number;
  table: PriceTable;
  at: Date;
}

export function spendRefusal(check: SpendCheck): string | null {
  const { spent, promptTokens, model, maxCost } = check;
  const usage = { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: promptTokens };
  const prompt = requestCost(usage, model, check.at, check.table);
  if (prompt === null || spent === null) {
    return `the price table has no price for ${spent === null ? "a model this session used" : model}, so --max-cost cannot be kept — add it to HEL_PRICES, or run without --max-cost`;
  }
  if (spent + prompt <= maxCost) return null;
  return `stopped before a request whose ~${promptTokens} input tokens (${formatUsd(prompt)} uncached) would take this session's spend of ${formatUsd(spent)} past --max-cost ${formatUsd(maxCost)} — raise --max-cost to go on`;
}

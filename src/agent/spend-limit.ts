// --max-cost: whether the next request may be sent, and with how many output tokens. Pure: the spend
// so far, what requests still being answered hold, the input tokens the request would carry (the
// meter's estimate) and its max_tokens in; the answer is a refusal line, or the max_tokens it may go
// with and the dollars to hold for it until its usage arrives. What is held is the most the request
// can cost — its prompt as if none were cached and its max_tokens all written — so no mix of
// answers, however many requests are in flight at once, takes the spend past the limit. When the
// whole max_tokens does not fit, the request goes with what does, down to MIN_OUTPUT_TOKENS.
import { formatUsd, requestCost, type PriceTable } from "../model/prices.js";
import type { AgentRef } from "./events.js";

/** Fewer output tokens than this is no answer worth paying for: the request is refused instead. */
export const MIN_OUTPUT_TOKENS = 4096;

export interface SpendCheck {
  /** US dollars spent so far; null when some request's model had no price. */
  spent: number | null;
  /** US dollars held for requests sent and not yet answered. */
  held: number;
  promptTokens: number;
  /** The request's max_tokens. */
  maxTokens: number;
  model: string;
  maxCost: number;
  table: PriceTable;
  at: Date;
}

export type SpendAnswer = { refused: string } | { maxTokens: number; hold: number };

/**
 * The run's --max-cost, asked by an agent before each request (an AgentSetup's `spendLimit`): a request
 * it lets go goes with the answer's max_tokens, and its hold stays until the agent's response event.
 */
export type SpendLimit = (ask: { agent: AgentRef; promptTokens: number; model: string; maxTokens: number }) => SpendAnswer;

export function spendAnswer(check: SpendCheck): SpendAnswer {
  const { spent, held, promptTokens, model, maxCost } = check;
  const cost = (completion: number) => requestCost({ prompt_tokens: promptTokens, completion_tokens: completion, prompt_cache_hit_tokens: 0 }, model, check.at, check.table);
  const prompt = cost(0);
  if (prompt === null || spent === null) {
    return { refused: `the price table has no price for ${spent === null ? "a model this session used" : model}, so --max-cost cannot be kept — add it to HEL_PRICES, or run without --max-cost` };
  }
  const perToken = (cost(1_000_000)! - prompt) / 1_000_000;
  const room = maxCost - spent - held - prompt;
  const fits = perToken === 0 ? check.maxTokens : Math.min(check.maxTokens, Math.floor(room / perToken));
  const least = Math.min(check.maxTokens, MIN_OUTPUT_TOKENS);
  if (room >= 0 && fits >= least) return { maxTokens: fits, hold: prompt + fits * perToken };
  const running = held > 0 ? ` (${formatUsd(held)} of it held for requests still being answered)` : "";
  return {
    refused: `stopped before a request whose ~${promptTokens} input tokens (${formatUsd(prompt)} uncached) and ${least} output tokens would take this session's spend of ${formatUsd(spent + held)}${running} past --max-cost ${formatUsd(maxCost)} — raise --max-cost to go on`,
  };
}

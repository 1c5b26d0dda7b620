// What DeepSeek charges, in US dollars per million tokens, and the cost of one request from its usage.
// The built-in table is DeepSeek's published price list as hel's authors last read it; `HEL_PRICES`
// (a JSON file of the same shape, checked with PriceTableSchema) replaces it whole. Costs are
// estimates: DeepSeek's bill is the truth, and the peak rule here knows no public holidays.
import { z } from "../zod.js";
import type { Usage } from "../wire/messages.js";

const perMillion = z.number().nonnegative();
const hour = z.number().int().min(0).max(24);

const ModelPriceSchema = z.strictObject({
  cache_hit: perMillion,
  cache_miss: perMillion,
  output: perMillion,
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** Hours (UTC) in which every price is multiplied. */
const PeakRuleSchema = z.strictObject({
  multiplier: z.number().positive(),
  /** Days of the week it applies on, in UTC: 0 is Sunday. */
  weekdays: z.array(z.number().int().min(0).max(6)),
  /** [from, to) hour ranges in UTC: [1, 4] is 01:00 to 04:00. */
  hours: z.array(z.tuple([hour, hour])),
  /** The first UTC day it applies on. */
  since: z.iso.date().optional(),
});
export type PeakRule = z.infer<typeof PeakRuleSchema>;

export const PriceTableSchema = z.strictObject({
  models: z.record(z.string().min(1), ModelPriceSchema),
  peak: PeakRuleSchema.nullable().default(null),
});
export type PriceTable = z.infer<typeof PriceTableSchema>;

const FLASH: ModelPrice = { cache_hit: 0.003, cache_miss: 0.15, output: 0.6 };

/**
 * DeepSeek's off-peak prices; peak hours cost twice as much (Monday to Friday, 01:00–04:00 and
 * 06:00–10:00 UTC, since 2026-08-16). The legacy Flash names are billed at the Flash price.
 */
export const DEFAULT_PRICES: PriceTable = {
  models: {
    "deepseek-flash": FLASH,
    "deepseek-v4-flash": FLASH,
    "deepseek-v4-flash-vision-exp": FLASH,
    "deepseek-v4-pro": { cache_hit: 0.022, cache_miss: 0.66, output: 1.98 },
  },
  peak: {
    multiplier: 2,
    weekdays: [1, 2, 3, 4, 5],
    hours: [
      [1, 4],
      [6, 10],
    ],
    since: "2026-08-16",
  },
};

export function isPeak(at: Date, rule: PeakRule | null): boolean {
  if (!rule) return false;
  if (rule.since && at.toISOString().slice(0, 10) < rule.since) return false;
  if (!rule.weekdays.includes(at.getUTCDay())) return false;
  const h = at.getUTCHours();
  return rule.hours.some(([from, to]) => h >= from && h < to);
}

/** US dollars for one request of `model` answered at `at`; null when the table has no price for it. */
export function requestCost(usage: Pick<Usage, "prompt_tokens" | "prompt_cache_hit_tokens" | "completion_tokens">, model: string, at: Date, table: PriceTable): number | null {
  const price = Object.hasOwn(table.models, model) ? table.models[model] : undefined;
  if (!price) return null;
  const hit = usage.prompt_cache_hit_tokens;
  // DeepSeek's prompt_tokens is hit + miss; a server that reports no cache figures missed on all of it.
  const miss = usage.prompt_tokens - hit;
  const factor = isPeak(at, table.peak) ? table.peak!.multiplier : 1;
  return (factor * (hit * price.cache_hit + miss * price.cache_miss + usage.completion_tokens * price.output)) / 1_000_000;
}

/** As people read it: "$0.0123", and "<$0.0001" for what is not zero but rounds to it. */
export function formatUsd(cost: number): string {
  return cost > 0 && cost < 0.0001 ? "<$0.0001" : `$${cost.toFixed(4)}`;
}

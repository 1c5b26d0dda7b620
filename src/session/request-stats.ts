// What a project's requests used and cost, by UTC day and by model, each figure split into DeepSeek's
// peak and off-peak hours: `hel stats`, from the requests each session's snapshot keeps. Pure: the
// records, the price table and the time it is now in, the report out. Days are UTC days, as DeepSeek's
// peak hours are UTC hours. Dollars are the price table's estimate at each request's time; a request
// whose model has no price adds its tokens and no dollars, and is counted as unpriced.
import { z } from "../zod.js";
import { isPeak, requestCost, type PriceTable } from "../model/prices.js";
import type { RequestUsage } from "../agent/usage.js";

/** What stats reads of each answered request a snapshot keeps. */
type StatsRequest = Pick<RequestUsage, "at" | "model" | "prompt_tokens" | "prompt_cache_hit_tokens" | "prompt_cache_miss_tokens" | "completion_tokens" | "estimated">;

const count = z.number().int().nonnegative();

const FiguresSchema = z.object({
  requests: count,
  prompt_tokens: count,
  prompt_cache_hit_tokens: count,
  prompt_cache_miss_tokens: count,
  completion_tokens: count,
  /** prompt_cache_hit_tokens / prompt_tokens, 0 to 1 (0 with no prompt tokens). */
  cache_hit_share: z.number().min(0).max(1),
  /** US dollars of the priced requests. */
  cost_usd: z.number().nonnegative(),
  /** Requests whose model the price table does not name: their dollars are not in cost_usd. */
  unpriced_requests: count,
  /** Requests answered without usage, whose tokens are hel's estimate. */
  estimated_requests: count,
});
export type Figures = z.infer<typeof FiguresSchema>;

const RowSchema = FiguresSchema.extend({ peak: FiguresSchema, off_peak: FiguresSchema });
export type Row = z.infer<typeof RowSchema>;

/** `hel stats --json`: a versioned shape scripts read (test/contracts/stats.txt). */
export const StatsReportSchema = z.object({
  schema_version: z.literal(1),
  /** --days: the last N UTC days, today included; null: every recorded day. */
  days: z.number().int().positive().nullable(),
  /** The first UTC day counted (YYYY-MM-DD); null with no --days. */
  from: z.iso.date().nullable(),
  /** Sessions with a request in the window. */
  sessions: count,
  /** Saved sessions that keep no requests (saved before hel kept them, or not laid out as hel writes): not counted. */
  unrecorded_sessions: count,
  /** Kept requests that were not a request's record (not hel's): not counted. */
  skipped_requests: count,
  total: RowSchema,
  /** Oldest day first; each day's models by name. */
  by_day: z.array(RowSchema.extend({ day: z.iso.date(), models: z.array(RowSchema.extend({ model: z.string() })) })),
  /** By name. */
  by_model: z.array(RowSchema.extend({ model: z.string() })),
});
export type StatsReport = z.infer<typeof StatsReportSchema>;

export interface SessionRequests {
  records: readonly StatsRequest[];
  skipped: number;
}

export interface StatsInput {
  sessions: readonly SessionRequests[];
  unrecordedSessions: number;
  table: PriceTable;
  days: number | null;
  now: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day `days - 1` days before `now`'s, as YYYY-MM-DD. */
function firstDay(now: Date, days: number): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * DAY_MS).toISOString().slice(0, 10);
}

interface Sums {
  requests: number;
  prompt: number;
  hit: number;
  miss: number;
  output: number;
  cost: number;
  unpriced: number;
  estimated: number;
}

const emptySums = (): Sums => ({ requests: 0, prompt: 0, hit: 0, miss: 0, output: 0, cost: 0, unpriced: 0, estimated: 0 });

class Tally {
  readonly peak = emptySums();
  readonly offPeak = emptySums();

  add(record: StatsRequest, peak: boolean, cost: number | null): void {
    const s = peak ? this.peak : this.offPeak;
    const u = record;
    s.requests++;
    s.prompt += u.prompt_tokens;
    s.hit += u.prompt_cache_hit_tokens;
    s.miss += u.prompt_cache_miss_tokens;
    s.output += u.completion_tokens;
    if (cost === null) s.unpriced++;
    else s.cost += cost;
    if (u.estimated) s.estimated++;
  }

  row(): Row {
    const both: Sums = emptySums();
    for (const key of Object.keys(both) as (keyof Sums)[]) both[key] = this.peak[key] + this.offPeak[key];
    return { ...figures(both), peak: figures(this.peak), off_peak: figures(this.offPeak) };
  }
}

function figures(s: Sums): Figures {
  return {
    requests: s.requests,
    prompt_tokens: s.prompt,
    prompt_cache_hit_tokens: s.hit,
    prompt_cache_miss_tokens: s.miss,
    completion_tokens: s.output,
    cache_hit_share: s.prompt === 0 ? 0 : s.hit / s.prompt,
    // Sums of fractions of a cent pick up float noise; a billionth of a dollar is plenty.
    cost_usd: Math.round(s.cost * 1e9) / 1e9,
    unpriced_requests: s.unpriced,
    estimated_requests: s.estimated,
  };
}

const tallyIn = <K>(map: Map<K, Tally>, key: K): Tally => {
  let tally = map.get(key);
  if (!tally) map.set(key, (tally = new Tally()));
  return tally;
};

const byKey = <T>(entries: [string, T][]): [string, T][] => entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

const HOUR_MS = 60 * 60 * 1000;

/**
 * The price table's peak rule read once per UTC hour (it names whole hours), and each request priced
 * off-peak, then multiplied in peak hours: a thousand sessions hold tens of thousands of requests.
 */
/** Any time: with no peak in the table it prices by, the time a request was made changes nothing. */
const OFF_PEAK_AT = new Date(0);

function pricer(table: PriceTable): (record: StatsRequest, atMs: number) => { peak: boolean; cost: number | null } {
  const offPeak: PriceTable = { ...table, peak: null };
  const hours = new Map<number, boolean>();
  return (record, atMs) => {
    const hour = Math.floor(atMs / HOUR_MS);
    let peak = hours.get(hour);
    if (peak === undefined) hours.set(hour, (peak = isPeak(new Date(hour * HOUR_MS), table.peak)));
    const base = requestCost(record, record.model, OFF_PEAK_AT, offPeak);
    return { peak, cost: base === null ? null : peak ? base * table.peak!.multiplier : base };
  };
}

/** The UTC day of an ISO time: its first ten characters when it is in UTC, as hel writes it. */
const dayOf = (at: string, atMs: number): string => (at.endsWith("Z") ? at.slice(0, 10) : new Date(atMs).toISOString().slice(0, 10));

export function requestStats(input: StatsInput): StatsReport {
  const from = input.days === null ? null : firstDay(input.now, input.days);
  const fromMs = from === null ? -Infinity : Date.parse(`${from}T00:00:00Z`);
  const price = pricer(input.table);
  const total = new Tally();
  const days = new Map<string, { tally: Tally; models: Map<string, Tally> }>();
  const models = new Map<string, Tally>();
  let sessions = 0;
  let skipped = 0;
  for (const session of input.sessions) {
    skipped += session.skipped;
    let counted = false;
    for (const record of session.records) {
      const atMs = Date.parse(record.at);
      if (atMs < fromMs) continue;
      counted = true;
      const { peak, cost } = price(record, atMs);
      const dayKey = dayOf(record.at, atMs);
      let day = days.get(dayKey);
      if (!day) days.set(dayKey, (day = { tally: new Tally(), models: new Map() }));
      for (const tally of [total, day.tally, tallyIn(day.models, record.model), tallyIn(models, record.model)]) tally.add(record, peak, cost);
    }
    if (counted) sessions++;
  }
  return {
    schema_version: 1,
    days: input.days,
    from,
    sessions,
    unrecorded_sessions: input.unrecordedSessions,
    skipped_requests: skipped,
    total: total.row(),
    by_day: byKey([...days]).map(([day, d]) => ({ day, ...d.tally.row(), models: byKey([...d.models]).map(([model, t]) => ({ model, ...t.row() })) })),
    by_model: byKey([...models]).map(([model, t]) => ({ model, ...t.row() })),
  };
}

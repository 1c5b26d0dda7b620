// What the evals produce: one run of a suite's condition, as run.json holds it (the runner writes it),
// and a suite's summary of its runs (summary.ts makes it). A module of its own so that the runner, the
// summary and the suites, which all speak of these, need not import each other.
import type { CheckOutcome, Verdict } from "./judges.js";
import type { Totals } from "./records.js";

export interface KeyFigures {
  prompt_tokens: number;
  prompt_cache_hit_tokens: number;
  prompt_cache_miss_tokens: number;
  hit_ratio: number;
}

export interface ProcessResult {
  record_dir: string;
  args: string[];
  exit_code: number | null;
  signal: string | null;
  killed: boolean;
  session_id: string | null;
  exit_reasons: string[];
}

export interface RunResult {
  suite: string;
  condition: string;
  repetition: number;
  mode: "offline" | "online";
  model: string;
  params: Record<string, string>;
  started_at: string;
  wall_ms: number;
  timed_out: boolean;
  /** Every process exited 0 within the limit. */
  completed: boolean;
  processes: ProcessResult[];
  /** Summed over the lines of raw/requests.jsonl of every process of the run. */
  totals: { all: Totals; parent: Totals; child: Totals };
  /** The largest prompt_tokens of any request; dollars at DeepSeek's off-peak prices (null: no price for the model); fresh-token equivalents. */
  cost: { peak_prompt_tokens: number; usd: number | null; fresh_equivalent: number };
  /** The suite's own figures of this run (Suite.measure). */
  measures: Record<string, number>;
  /** The suite's checks, run in the project after hel exited. */
  checks: Record<string, CheckOutcome>;
  key_requests: Record<string, KeyFigures | null>;
  judges: Record<string, Verdict>;
  /** Offline: what the simulator itself served during the run, to check the records against. */
  simulator: Totals | null;
  problems: string[];
  /** Where run.json is, relative to the suite's output directory. */
  path: string;
}

// A suite's summary, from its runs (summary.ts makes it, suite.ts's appendix reads it).
export interface ConditionRow {
  condition: string;
  description: string;
  runs: number;
  /** Runs whose hel processes all exited 0 within the time limit. */
  completed: number;
  timed_out: number;
  /** Judge id → runs it passed. */
  passed: Record<string, number>;
  /** Sums over the runs (each run's own totals sum its raw/requests.jsonl lines, every process). */
  totals: { all: Totals; parent: Totals; child: Totals; wall_ms: number };
  /** Means over the runs. */
  mean: {
    requests_parent: number;
    requests_child: number;
    prompt_tokens: number;
    prompt_cache_hit_tokens: number;
    prompt_cache_miss_tokens: number;
    completion_tokens: number;
    wall_s: number;
  };
  /** Σ cache hit tokens / Σ input tokens over the runs. */
  hit_ratio: number;
  /**
   * The largest prompt any request of any run carried; dollars at DeepSeek's off-peak prices and the
   * article's fresh-token equivalents, means over the runs (usd null when the model has no price).
   */
  cost: { peak_prompt_tokens: number; usd: number | null; fresh_equivalent: number };
  /** The suite's own figures (Suite.measure), each a mean over the runs that had it. */
  measures: Record<string, number>;
}

export interface KeyRequestRow {
  condition: string;
  label: string;
  /** Runs that had this request (baseline has no child, for one). */
  runs: number;
  mean: Omit<KeyFigures, "hit_ratio"> | null;
  hit_ratio: number | null;
  /** Each run's figures, in repetition order; null where the run had no such request. */
  per_run: (KeyFigures | null)[];
}

export interface Summary {
  suite: string;
  title: string;
  mode: "offline" | "online";
  model: string;
  /** Offline: the simulator policy that played the model. */
  simulator_policy: string | null;
  repeat: number;
  timeout_s: number;
  generated_at: string;
  judges: { id: string; title: string; description: string }[];
  conditions: ConditionRow[];
  /** Conditions asked for that this hel cannot run, with why. */
  skipped: { condition: string; reason: string }[];
  key_requests: KeyRequestRow[];
  failures: { condition: string; repetition: number; judge: string; detail: string }[];
  problems: { condition: string; repetition: number; problem: string }[];
  /** Each run's run.json, relative to the suite's output directory. */
  runs: string[];
}

// What a suite is: a fixture project, the simulator policy that plays the model offline, its
// conditions, the hel processes one run of a condition starts, the judges, and the requests whose
// cache figures the summary shows one by one. Suites are data; runner.ts does the running.
import type { PolicyName } from "../sim/index.js";
import { lastUserText as lastUserTextOf } from "../sim/policies.js";
import type { Judge } from "./judges.js";
import type { RequestLine } from "./records.js";
import type { Summary } from "./results.js";

/** One hel process of a run. */
export interface ProcessPlan {
  /** One instruction is passed as the prompt argument; several are fed as stdin lines to one process. */
  instructions: string[];
  /** hel flags besides the ones the runner adds (-C, --json, --record, --model, --base-url, --resume). */
  args: string[];
  /** Continue the session the previous process of the run saved (`--resume <its session id>`). */
  resumePrevious?: boolean;
  /** Its --record directory, relative to the run directory ("" = the run directory itself). */
  recordDir: string;
}

/** A request line of a run, with the index of the process that made it. */
export type RunRequest = RequestLine & { process: number };

/** What the hel under test offers, read from its --help: the tools --tools accepts and its long flags. */
export interface HelOffer {
  tools: ReadonlySet<string>;
  flags: ReadonlySet<string>;
}

/** A command run with node in the run's project after hel exits, before the judges. */
export interface ProjectCheck {
  id: string;
  /** Arguments to node, e.g. ["test/two-workers.js"]. */
  args: string[];
}

/** A request the summary shows on its own line of the per-request cache table. */
export interface KeyRequest {
  label: string;
  /** The request among the run's requests (all processes, in order), or undefined when there is none. */
  pick(requests: readonly RunRequest[]): RunRequest | undefined;
}

export interface Suite {
  name: string;
  /** One line: what the suite measures. */
  title: string;
  /** Directory under fixtures/ copied fresh for every run. */
  fixture: string;
  /** The simulator policy that plays the model offline. */
  policy: PolicyName;
  /** Condition names, in the order the summary lists them, with what each one changes. */
  conditions: Readonly<Record<string, string>>;
  /** Values drawn fresh for each repetition and shared by its conditions (h9: the identifier). */
  params(): Record<string, string>;
  plan(condition: string, params: Readonly<Record<string, string>>, hel: HelOffer): ProcessPlan[];
  /** Why a condition cannot run on this hel (a tool or flag it does not offer), or null when it can. */
  unavailable?(condition: string, hel: HelOffer): string | null;
  /** Commands run in the project after each run, for the judges. */
  checks?: ProjectCheck[];
  /** Figures of one run read off its requests, averaged per condition in the summary (fold: sizes for the cost model). */
  measure?(requests: readonly RunRequest[]): Record<string, number>;
  /** Markdown appended to the summary (fold: the cost model filled with what the suite measured). */
  appendix?(summary: Summary): string;
  /** Project files read after the run for the judges. */
  files: string[];
  judges: Judge[];
  keyRequests: KeyRequest[];
}

/** The last user message of a request body. */
export const lastUserText = (line: RequestLine): string => lastUserTextOf(line.body);

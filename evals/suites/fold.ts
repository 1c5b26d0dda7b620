// Suite fold (the seed article's experiment): on fixtures/fold, one hel process gets three
// instructions: explore the queue, make the build pass (an episode of failing builds whose output
// teaches that the claim must select and claim in one transaction), then a follow-up that breaks the
// queue unless that constraint is remembered. The conditions differ only in what becomes of the build
// episode: it stays inline, is compacted, is folded, or is delegated to a fresh child, to a fork of the
// unfolded view, or to a fork of a view whose exploration was folded first.
import { ARTICLE_PARAMS, costModel, costTable, type CostParams } from "../cost-model.js";
import { FOLD_JUDGES, QUEUE_FILES, TWO_WORKERS_CHECK } from "../fold-judges.js";
import { lastUserText, type HelOffer, type KeyRequest, type RunRequest, type Suite } from "../suite.js";
import { z } from "../../src/zod.js";
import type { Summary } from "../summary.js";

export const FOLD_EXPLORE = "Read README.md, queue/claim.js and queue/worker.js, and tell me in two sentences how a worker claims a job.";
export const FOLD_BUILD = "Make the build pass: run `node build.js` with run_command and fix what it reports (there is no network). Tell me what you changed.";
export const FOLD_FOLLOW_UP =
  "Move the job-selection query out of claimNext into its own exported helper function, selectNextJob, in queue/claim.js, so the admin page can reuse it, and make claimNext call it. Keep the change small; I will run the build myself.";
/** How the conditions ask for what they measure; the three tasks stay the same. */
const THEN_FOLD_BUILD = " When it passes, fold the build episode with the fold tool.";
const THEN_FOLD_EXPLORATION = " Then fold this exploration with the fold tool.";
const DELEGATE = " Delegate this to a subagent with delegate_task.";

const BASE_TOOLS = ["read_file", "search_replace", "run_command", "grep", "find_files"];
const CONTEXT_TOOLS = ["fold", "recall", "ask"];
/** Low enough that the build episode is compacted before the follow-up (the view passes it during the build). */
export const FOLD_COMPACT_AT = 6000;

const CONDITIONS = {
  inline: "the build episode stays in the conversation: no compaction, no fold",
  compaction: `--compact-at ${FOLD_COMPACT_AT}: the episode is compacted when the view outgrows it`,
  fold: "the agent folds the build episode when the build passes",
  "fresh-child": "the build is delegated task-only: the child starts from the system prompt and the task",
  fork: "the build is delegated full: the child inherits the unfolded view",
  "fork-folded": "the exploration is folded first, then the build is delegated full: the child inherits the folded view",
} as const;
type Condition = keyof typeof CONDITIONS;

/** Per condition: the context tools it needs, whether it delegates and how, the flags it needs. */
const NEEDS: Record<Condition, { tools: string[]; delegate?: "full" | "task-only"; flags: string[] }> = {
  inline: { tools: [], flags: [] },
  compaction: { tools: ["recall"], flags: ["--compact-at"] },
  fold: { tools: ["fold", "recall"], flags: [] },
  "fresh-child": { tools: [], delegate: "task-only", flags: [] },
  fork: { tools: [], delegate: "full", flags: [] },
  "fork-folded": { tools: ["fold", "recall"], delegate: "full", flags: [] },
};

function isCondition(c: string): c is Condition {
  return c in CONDITIONS;
}

function unavailable(condition: string, hel: HelOffer): string | null {
  if (!isCondition(condition)) return null;
  const needs = NEEDS[condition];
  const missing = [...needs.tools.filter((t) => !hel.tools.has(t)).map((t) => `the ${t} tool`), ...needs.flags.filter((f) => !hel.flags.has(f))];
  return missing.length ? `this hel does not offer ${missing.join(" or ")}` : null;
}

function plan(condition: string, _params: Readonly<Record<string, string>>, hel: HelOffer) {
  if (!isCondition(condition)) throw new Error(`fold has no condition ${condition}`);
  const needs = NEEDS[condition];
  // Conditions that may fold or recall get every context tool this hel has (ask among them, when it does).
  const tools = needs.tools.length ? [...BASE_TOOLS, ...CONTEXT_TOOLS.filter((t) => hel.tools.has(t))] : BASE_TOOLS;
  const args = ["--tools", tools.join(",")];
  if (needs.delegate) args.push("--delegate", needs.delegate);
  if (condition === "compaction") args.push("--compact-at", String(FOLD_COMPACT_AT));
  const explore = FOLD_EXPLORE + (condition === "fork-folded" ? THEN_FOLD_EXPLORATION : "");
  const build = FOLD_BUILD + (condition === "fold" ? THEN_FOLD_BUILD : needs.delegate ? DELEGATE : "");
  return [{ instructions: [explore, build, FOLD_FOLLOW_UP], args, recordDir: "" }];
}

// ------------------------------------------------------------------------------------ key requests

const parents = (rs: readonly RunRequest[]) => rs.filter((r) => r.agent === "parent");
const foldAnswered = (r: RunRequest): boolean => {
  const folds = new Set(r.body.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []).filter((c) => c.function.name === "fold").map((c) => c.id) : [])));
  return r.body.messages.some((m) => m.role === "tool" && folds.has(m.tool_call_id));
};
const isCompactionRequest = (r: RunRequest): boolean => /^(?:\[#\d+\] )?Context compaction:/.test(lastUserText(r));
const firstChild = (rs: readonly RunRequest[]): number => rs.findIndex((r) => r.agent === "child");
const isFollowUp = (r: RunRequest): boolean => lastUserText(r).endsWith(FOLD_FOLLOW_UP);

const keyRequests: KeyRequest[] = [
  {
    label: "parent, last before the fold",
    pick: (rs) => {
      const after = rs.findIndex((r) => r.agent === "parent" && foldAnswered(r));
      return after < 0 ? undefined : parents(rs.slice(0, after)).at(-1);
    },
  },
  { label: "parent, first after the fold", pick: (rs) => rs.find((r) => r.agent === "parent" && foldAnswered(r)) },
  { label: "compaction summary request", pick: (rs) => rs.find(isCompactionRequest) },
  {
    label: "parent, first after compaction",
    pick: (rs) => {
      const at = rs.findIndex(isCompactionRequest);
      return at < 0 ? undefined : parents(rs.slice(at + 1))[0];
    },
  },
  {
    label: "parent, delegating request",
    pick: (rs) => {
      const c = firstChild(rs);
      return c < 0 ? undefined : parents(rs.slice(0, c)).at(-1);
    },
  },
  { label: "child, first request", pick: (rs) => rs[firstChild(rs)] },
  { label: "child, last request", pick: (rs) => rs.findLast((r) => r.agent === "child") },
  {
    label: "parent, first after delegation",
    pick: (rs) => {
      const c = firstChild(rs);
      return c < 0 ? undefined : rs.slice(c).find((r) => r.agent === "parent");
    },
  },
  { label: "follow-up, first request", pick: (rs) => rs.find((r) => r.agent === "parent" && isFollowUp(r)) },
];

// ---------------------------------------------------------------------------------- measured costs

/**
 * Sizes for the cost model, read off one run's requests: the child's first prompt (for a fork, the
 * parent's view it inherits; for a fresh child, its system prompt and task), its requests, what its
 * loop added (last prompt + last output − first prompt), and what it re-read of what the parent had
 * read (the growth of its prompt at each read_file of a path the parent read before delegating).
 */
export function measureChild(requests: readonly RunRequest[]): Record<string, number> {
  const children = requests.filter((r) => r.agent === "child" && r.usage);
  const first = children[0];
  const last = children.at(-1);
  if (!first || !last) return {};
  const c = requests.indexOf(first);
  const parentRead = new Set(
    parents(requests.slice(0, c)).flatMap((r) =>
      r.body.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []).filter((t) => t.function.name === "read_file").map((t) => t.function.arguments) : [])),
    ),
  );
  let reread = 0;
  for (let i = 1; i < children.length; i++) {
    const before = children[i - 1]!;
    const call = children[i]!.body.messages.findLast((m) => m.role === "assistant");
    const reads = call?.role === "assistant" ? (call.tool_calls ?? []).filter((t) => t.function.name === "read_file" && parentRead.has(t.function.arguments)) : [];
    if (reads.length) reread += children[i]!.usage!.prompt_tokens - before.usage!.prompt_tokens;
  }
  return {
    child_first_prompt: first.usage!.prompt_tokens,
    child_requests: children.length,
    child_added: last.usage!.prompt_tokens + last.usage!.completion_tokens - first.usage!.prompt_tokens,
    child_reread: reread,
  };
}

/** The part of a summary.json that measuredParams reads, checked when `evals cost-model --from` loads one. */
export const MeasuredSummarySchema = z.object({
  suite: z.string(),
  mode: z.enum(["offline", "online"]),
  model: z.string(),
  conditions: z.array(z.object({ condition: z.string(), measures: z.record(z.string(), z.number()) })),
});
export type MeasuredSummary = z.infer<typeof MeasuredSummarySchema>;

export interface MeasuredParams {
  params: CostParams;
  /** Which parameters came from the suite, and from which condition's runs. */
  measured: Partial<Record<keyof CostParams, string>>;
}

/**
 * The cost model's sizes from a fold summary: prefix from the fork's child, system prompt, turns and
 * loop additions from the fresh child, re-reading as what the fresh child re-read beyond the fork's
 * child, the folded prefix from fork-folded's child.
 * What the summary lacks (a condition not run) keeps the article's value; the price factors stay the
 * article's (or the caller's).
 */
export function measuredParams(summary: Pick<MeasuredSummary, "conditions">, base: CostParams = ARTICLE_PARAMS): MeasuredParams {
  const params = { ...base };
  const measured: MeasuredParams["measured"] = {};
  const take = (key: keyof CostParams, condition: Condition, measure: string) => {
    const value = summary.conditions.find((c) => c.condition === condition)?.measures[measure];
    if (value === undefined) return;
    params[key] = value;
    measured[key] = condition;
  };
  take("prefix", "fork", "child_first_prompt");
  take("system", "fresh-child", "child_first_prompt");
  take("turns", "fresh-child", "child_requests");
  take("added", "fresh-child", "child_added");
  // What a fresh child reads of the parent's material beyond what a fork reads of it anyway (both look at
  // the claim during the build): the part of the re-reading a fork spares.
  const forkReread = summary.conditions.find((c) => c.condition === "fork")?.measures.child_reread;
  take("reread", "fresh-child", "child_reread");
  if (measured.reread && forkReread !== undefined) {
    params.reread = Math.max(0, params.reread - forkReread);
    measured.reread = "fresh-child − fork";
  }
  take("foldedPrefix", "fork-folded", "child_first_prompt");
  return { params, measured };
}

/** The cost model filled with what the suite measured, as Markdown, beside where each size came from. */
export function measuredCostSection(summary: Omit<MeasuredSummary, "suite">, base: CostParams = ARTICLE_PARAMS): string {
  const { params, measured } = measuredParams(summary, base);
  const model = costModel(params, 1);
  const sources = (Object.keys(measured) as (keyof CostParams)[]).map((k) => `${k} ${Math.round(params[k]).toLocaleString("en-US")} (${measured[k]})`);
  const kept = (Object.keys(params) as (keyof CostParams)[]).filter((k) => !(k in measured));
  return [
    "## The article's cost model, filled with these runs",
    "",
    costTable(model, params),
    "",
    `fork / fresh child: ${model.forkToFresh.toFixed(2)}× · the folded fork costs ${(model.foldedFork.total / model.fresh.total).toFixed(2)}× a fresh child`,
    `Measured (${summary.mode === "offline" ? "offline, on the simulator" : `online, ${summary.model}`}; means over the runs): ${sources.join(", ") || "nothing (no delegating condition ran)"}. ` +
      `Kept from the article: ${kept.map((k) => `${k} ${params[k]}`).join(", ")}.`,
  ].join("\n");
}

export const fold: Suite = {
  name: "fold",
  title: "the seed article's fold and fork experiment: a build episode, then a follow-up that needs what it taught",
  fixture: "fold",
  policy: "fold",
  conditions: CONDITIONS,
  params: () => ({}),
  plan,
  unavailable,
  files: QUEUE_FILES,
  checks: [{ id: TWO_WORKERS_CHECK, args: ["test/two-workers.js"] }],
  judges: FOLD_JUDGES,
  keyRequests,
  measure: measureChild,
  appendix: (summary: Summary) => measuredCostSection(summary),
};

// Suite fold (the seed article's experiment): on fixtures/fold, one hel process gets three
// instructions: explore the queue, make the build pass (an episode of failing builds whose output
// teaches that the claim must select and claim in one transaction), then a follow-up that breaks the
// queue unless that constraint is remembered. The conditions differ only in what becomes of the build
// episode: it stays inline, is compacted, is folded, or is delegated to a fresh child, to a fork of the
// unfolded view, or to a fork of a view whose exploration was folded first.
import { FOLD_JUDGES, QUEUE_FILES, TWO_WORKERS_CHECK } from "../fold-judges.js";
import { measureChild, measuredCostSection } from "../fold-measures.js";
import { lastUserText, type HelOffer, type KeyRequest, type RunRequest, type Suite } from "../suite.js";
import type { Summary } from "../results.js";

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

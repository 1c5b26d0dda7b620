// What the fold suite measures for the seed article's cost model: per run, the sizes of the child's
// loop (measureChild); from a summary, the model's parameters (measuredParams) and the model's table
// filled with them (measuredCostSection), printed below the suite's summary and by
// `evals cost-model --from <summary.json>`.
import { z } from "../src/zod.js";
import { ARTICLE_PARAMS, costModel, costTable, type CostParams } from "./cost-model.js";
import type { RunRequest } from "./suite.js";

const parents = (rs: readonly RunRequest[]) => rs.filter((r) => r.agent === "parent");

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
    parents(requests.slice(0, c)).flatMap((r) => r.body.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []).filter((t) => t.function.name === "read_file").map((t) => t.function.arguments) : []))),
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
  const take = (key: keyof CostParams, condition: string, measure: string) => {
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

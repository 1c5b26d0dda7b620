// The session as an ATIF trajectory (Agent Trajectory Interchange Format v1.4, Harbor's RFC 0001), for
// evaluation harnesses: a system step for the system prompt and for each of hel's notes, a user step
// per instruction, an agent step per model answer with its tool calls and their results as the
// observation. Spans that left the view (folds, compactions) are put back where they were, so the steps
// are the whole history and each agent step is one request, whose tokens and dollars are its metrics
// when the session's request log has them. Each child is a trajectory of its own in `extra.subagents`,
// referenced from the observation of the call that started it. Pure.
import type { Entry, ExportedChild, SessionDocument } from "./document.js";
import type { RequestUsage } from "../agent/usage.js";

const ATIF_VERSION = "ATIF-v1.4";

type Json = Record<string, unknown>;

export interface AtifTrajectory {
  schema_version: typeof ATIF_VERSION;
  session_id: string;
  agent: { name: string; version: string; model_name?: string; extra?: Json };
  steps: Json[];
  notes?: string;
  final_metrics?: Json;
  extra?: Json;
}

/** The entries in the order they happened: an archived span before the fold call or note that replaced it. */
function chronological(entries: readonly Entry[], doc: SessionDocument, seen = new Set<string>()): Entry[] {
  const spans = new Map(doc.archive.map((a) => [a.handle, a]));
  const out: Entry[] = [];
  let pendingAnswer: number | null = null;
  for (const e of entries) {
    const handle = (e.type === "tool_call" || e.type === "note") && e.archive && !seen.has(e.archive) ? e.archive : undefined;
    const span = handle ? spans.get(handle) : undefined;
    if (handle && span?.entries) {
      seen.add(handle);
      const before = chronological(span.entries, doc, seen);
      // A fold call's span came before the answer that made the call.
      const at = e.type === "tool_call" && pendingAnswer !== null ? pendingAnswer : out.length;
      out.splice(at, 0, ...before);
      if (pendingAnswer !== null && at === pendingAnswer) pendingAnswer += before.length;
    }
    if (e.type === "answer") pendingAnswer = out.length;
    else if (e.type !== "tool_call") pendingAnswer = null;
    out.push(e);
  }
  return out;
}

function argumentsObject(text: string): Json {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Json;
  } catch {
    // Arguments that are not a JSON object are kept as the model wrote them.
  }
  return { _raw: text };
}

function metricsOf(r: RequestUsage): Json {
  return {
    prompt_tokens: r.prompt_tokens,
    completion_tokens: r.completion_tokens,
    cached_tokens: r.prompt_cache_hit_tokens,
    ...(r.cost_usd === null ? {} : { cost_usd: r.cost_usd }),
    ...(r.estimated ? { extra: { estimated: true } } : {}),
  };
}

const childSessionId = (doc: SessionDocument, n: number) => `${doc.session.id}/children/${n}`;

function stepsOf(entries: readonly Entry[], doc: SessionDocument, model: string, requests: readonly RequestUsage[], subagents: AtifTrajectory[], version: string): Json[] {
  const answers = entries.filter((e) => e.type === "answer").length;
  // Metrics are given only when every answer has its request: otherwise they could name the wrong one.
  const withMetrics = answers === requests.length;
  const steps: Json[] = [];
  let answer = 0;
  let agentStep: (Json & { tool_calls: Json[]; observation: { results: Json[] } }) | null = null;
  const children = new Map(doc.children.map((c) => [c.number, c]));
  for (const e of entries) {
    const id = steps.length + 1;
    switch (e.type) {
      case "system":
        steps.push({ step_id: id, source: "system", message: e.text });
        agentStep = null;
        break;
      case "note":
        steps.push({ step_id: id, source: "system", message: e.text, ...(e.archive ? { extra: { archive: e.archive } } : {}) });
        agentStep = null;
        break;
      case "instruction":
        steps.push({ step_id: id, source: "user", message: e.text, ...(e.turn ? { extra: { turn: e.turn } } : {}) });
        agentStep = null;
        break;
      case "answer": {
        const request = withMetrics ? requests[answer] : undefined;
        answer++;
        agentStep = { step_id: id, source: "agent", model_name: request?.model || model, message: e.text, tool_calls: [], observation: { results: [] } };
        if (e.reasoning) agentStep.reasoning_content = e.reasoning;
        if (request) {
          agentStep.timestamp = request.at;
          agentStep.metrics = metricsOf(request);
        }
        steps.push(agentStep);
        break;
      }
      case "tool_call": {
        if (!agentStep) break;
        agentStep.tool_calls.push({ tool_call_id: e.id, function_name: e.name, arguments: argumentsObject(e.arguments) });
        const child = e.child === undefined ? undefined : children.get(e.child);
        const result: Json = { source_call_id: e.id, ...(e.result === null ? {} : { content: e.result }) };
        if (child) {
          subagents.push(childTrajectory(child, doc, requests, version, subagents));
          result.subagent_trajectory_ref = [
            { session_id: childSessionId(doc, child.number), trajectory_path: `#/extra/subagents/${subagents.length - 1}`, extra: { exit_reason: child.exit_reason, answer: child.answer } },
          ];
        }
        agentStep.observation.results.push(result);
        if (e.edit) agentStep.extra = { ...((agentStep.extra as Json) ?? {}), [`edit:${e.id}`]: e.edit };
        break;
      }
    }
  }
  for (const step of steps) {
    if (Array.isArray(step.tool_calls) && step.tool_calls.length === 0) delete step.tool_calls;
    const observation = step.observation as { results: Json[] } | undefined;
    if (observation && observation.results.length === 0) delete step.observation;
  }
  return steps;
}

function childTrajectory(child: ExportedChild, doc: SessionDocument, all: readonly RequestUsage[], version: string, subagents: AtifTrajectory[]): AtifTrajectory {
  const requests = all.filter((r) => r.agent === "child" && r.delegation === child.number);
  const model = requests[0]?.model || doc.session.model;
  return {
    schema_version: ATIF_VERSION,
    session_id: childSessionId(doc, child.number),
    agent: { name: "hel", version, model_name: model, extra: { subagent: child.number, kind: child.kind, ...(child.mode ? { mode: child.mode } : {}), ...(child.agent_name ? { agent_name: child.agent_name } : {}) } },
    steps: stepsOf(child.entries, doc, model, requests, subagents, version),
    final_metrics: finalMetrics(child.spend),
  };
}

function finalMetrics(spend: SessionDocument["spend"]["total"], steps?: number): Json {
  return {
    total_prompt_tokens: spend.prompt_tokens,
    total_completion_tokens: spend.completion_tokens,
    total_cached_tokens: spend.prompt_cache_hit_tokens,
    ...(spend.cost_usd === null ? {} : { total_cost_usd: spend.cost_usd }),
    ...(steps === undefined ? {} : { total_steps: steps }),
  };
}

export function toAtif(doc: SessionDocument, version: string): AtifTrajectory {
  const subagents: AtifTrajectory[] = [];
  const parentRequests = doc.requests.filter((r) => r.agent === "parent");
  const steps = stepsOf(chronological(doc.entries, doc), doc, doc.session.model, parentRequests, subagents, version);
  return {
    schema_version: ATIF_VERSION,
    session_id: doc.session.id,
    agent: { name: "hel", version, model_name: doc.session.model },
    steps,
    notes:
      "Exported by hel. Spans that hel folded or compacted out of the conversation are put back where they were. Each subagent's trajectory is in extra.subagents; its tokens are in its own final_metrics, and final_metrics here totals every agent.",
    final_metrics: finalMetrics(doc.spend.total, steps.length),
    extra: { subagents },
  };
}

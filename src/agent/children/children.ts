// One child agent from its start to its end, whatever its kind (delegate_task, review_changes, ask):
// its number (counted through the session, resumes included), its events, its budget across the turns
// it runs, and its transcript. The child runs the loop with the settings and tool list of the agent
// whose tool call started it, as its kind's row (kinds.ts) adjusts them; its own messages never
// reach the parent. A task-only delegation and a review share no prefix with the parent, so they may
// run on a model of their own (--child-model); every other child, built from the parent's messages,
// keeps the parent's model and its cache, unless its named agent's file names a model.
import type { Message } from "../../wire/messages.js";
import { stepCeiling, type BudgetStop, type ChildBudget } from "./child-budget.js";
import type { DelegateMode } from "../events.js";
import { childTools } from "./child-tools.js";
import { childLabel, rowOf } from "./kinds.js";
import type { NamedAgent } from "./named-agent.js";
import type { ChildTranscript } from "./child-transcript.js";
import type { AgentEvent, ChildKind, EventSink, ExitReason } from "../events.js";
import { beginTurn, runTurn, type AgentSetup, type TurnOutcome } from "../loop/loop.js";
import { emptyTotals, sumTotals, type UsageTotals } from "../usage.js";

/** What a child takes of the agent that starts it: its run settings, but not its identity or limits. */
export type ChildParent = Omit<AgentSetup, "ref" | "emit" | "maxSteps" | "maxTokens">;

export interface ChildrenDeps {
  emit: EventSink;
  /** Every child's limits (--child-max-steps, --child-max-tokens). */
  budget: ChildBudget;
  /** Children already started in this session, so numbers keep counting after a resume. */
  firstNumber?: number;
  saveTranscript?: (transcript: Omit<ChildTranscript, "cost_usd">) => Promise<void>;
  /** The model of task-only delegations and reviews (--child-model); null or absent: the parent's. */
  childModel?: string | null;
}

export interface ChildSpec {
  kind: ChildKind;
  mode: DelegateMode | null;
  /** The parent's words for it (a delegation's task, a review's focus). */
  task: string;
  messages: Message[];
  /** Fewer model requests than the step budget, as a delegate_task call may ask. */
  maxSteps?: number;
  /** The named agent a delegate_task call chose: its row, model and step budget apply. */
  agent?: NamedAgent;
}

export interface Child {
  readonly messages: Message[];
  /**
   * Runs one turn over the child's messages within what is left of its budget. A later turn adds
   * `instruction` first (the parent's word to it), and may be held to fewer `steps`.
   */
  turn(signal: AbortSignal, next?: { instruction: string; steps: number }): Promise<TurnOutcome>;
  /** Its latest words after the parent's last message to it: its answer, or its progress so far. */
  lastText(): string | null;
  /** Which budget ended the latest turn, if one did. */
  budgetStop(): BudgetStop | null;
  /** Reports the child's end (delegation_end) and saves its transcript. */
  end(answer: string | null, exitReason: ExitReason): Promise<void>;
}

export interface Children {
  readonly budget: ChildBudget;
  /** Starts a child of `parent`: the running agent, as the tool call's context carries it. */
  start(spec: ChildSpec, parent: ChildParent): Child;
}

export function createChildren(deps: ChildrenDeps): Children {
  let count = deps.firstNumber ?? 0;
  const { budget } = deps;
  return {
    budget,
    start(spec, parent) {
      const number = ++count;
      const row = rowOf(spec);
      const ceiling = stepCeiling(budget, spec.agent?.maxSteps);
      const stepLimit = Math.min(spec.maxSteps ?? ceiling, ceiling);
      const named = spec.agent ? { agentName: spec.agent.name } : {};
      const ref = { agent: "child" as const, delegation: number };
      const toolCalls: { name: string; arguments: string }[] = [];
      const emit = (event: AgentEvent) => {
        if (event.type === "tool_start") toolCalls.push({ name: event.name, arguments: event.arguments });
        deps.emit(event);
      };
      const { messages } = spec;
      const editLog = parent.toolContext.caller.editLog.child(number);
      let usage: UsageTotals = emptyTotals();
      let last: TurnOutcome | null = null;
      const childModel = spec.agent?.model ?? (spec.kind === "review" || spec.mode === "task-only" ? deps.childModel : null);
      const run: Omit<AgentSetup, "maxSteps" | "maxTokens"> = {
        ...parent,
        // --json-schema shapes the parent's final answer only: a child answers its parent in prose.
        answerShape: undefined,
        ...(childModel ? { request: { ...parent.request, model: childModel } } : {}),
        ref,
        emit,
        tools: childTools(parent.tools, row),
        ...(row.keepsArchive ? {} : { archive: undefined, compaction: undefined }),
        // The child's kind may narrow its access; a question to the user names the child asking it.
        toolContext: {
          ...parent.toolContext,
          policy: { ...parent.toolContext.policy, access: row.access ?? parent.toolContext.policy.access },
          caller: { label: `subagent ${number} (${childLabel({ ...spec, ...named })})`, editLog },
        },
        // The user's hooks run for the child too, and their payload names it.
        ...(parent.hooks ? { hooks: parent.hooks.forChild({ number, kind: spec.kind, ...(spec.agent ? { name: spec.agent.name } : {}) }) } : {}),
      };
      deps.emit({ agent: "parent", type: "delegation_start", number, kind: spec.kind, mode: spec.mode, ...named, task: spec.task });

      return {
        messages,
        async turn(signal, next) {
          const stepsLeft = Math.max(stepLimit - usage.requests, 0);
          const spent = usage.prompt_tokens + usage.completion_tokens;
          if (next) beginTurn(messages, next.instruction, run);
          else emit({ ...ref, type: "turn_start", instruction: spec.task });
          last = await runTurn(
            messages,
            {
              ...run,
              maxSteps: Math.min(stepsLeft, next?.steps ?? stepsLeft),
              maxTokens: budget.maxTokens === null ? null : Math.max(budget.maxTokens - spent, 0),
            },
            signal,
          );
          usage = sumTotals(usage, last.usage);
          return last;
        },
        lastText() {
          for (let i = messages.length - 1; i >= 0 && messages[i]!.role !== "user"; i--) {
            const m = messages[i]!;
            const text = m.role === "assistant" ? m.content?.trim() : "";
            if (text) return text;
          }
          return null;
        },
        budgetStop() {
          if (last?.exitReason === "token_budget" && budget.maxTokens !== null) {
            return { budget: "tokens", limit: budget.maxTokens, used: usage.prompt_tokens + usage.completion_tokens };
          }
          if (last?.exitReason === "max_steps" && usage.requests >= stepLimit) {
            return { budget: "steps", limit: stepLimit, source: stepLimit < ceiling ? "call" : ceiling < budget.maxSteps ? "agent" : "flag" };
          }
          return null;
        },
        async end(answer, exitReason) {
          editLog.finish();
          deps.emit({ agent: "parent", type: "delegation_end", number, kind: spec.kind, mode: spec.mode, ...named, task: spec.task, answer, exitReason, toolCalls, usage });
          const agentName = spec.agent ? { agent_name: spec.agent.name } : {};
          await deps.saveTranscript?.({ number, kind: spec.kind, mode: spec.mode, ...agentName, task: spec.task, messages, answer, exit_reason: exitReason, usage });
        },
      };
    },
  };
}

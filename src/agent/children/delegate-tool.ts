// delegate_task: runs a child agent on the same loop, in this process, and returns only its final
// answer as the tool result. The child gets the parent's model, system prompt, tool list (this tool
// included, so the cached prefix is shared), project directory and access, and the child budget; a
// call may ask for fewer steps than the budget, never more. With named agents (named-agent.ts) the call
// may name one: its mode, instructions, tools, model, steps and access then shape the child
// (delegate-offer.ts says how the tool lists them). A child a budget stopped returns its last text and
// a line naming the budget; one that failed otherwise returns an error the parent can act on.
// Consecutive calls in one message run their children at the same time (the catalogue says so). A call
// with `isolation: "worktree"` (or whose agent or `child-isolation` says so) runs its child in a worktree
// of its own (isolation.ts), and its result adds the files it changed and how they were merged.
import { z } from "../../zod.js";
import { toolDefinitions } from "../../tools/registry.js";
import { ToolError, type Access, type MergeDetails, type Tool } from "../../tools/types.js";
import type { Message } from "../../wire/messages.js";
import { budgetStopLine, stepCeiling } from "./child-budget.js";
import { childMessages, delegateDescription } from "./child-messages.js";
import { definitionSize, delegateOffer, type DelegateOffer } from "./delegate-offer.js";
import type { DelegateMode } from "../events.js";
import type { Child, Children, ChildSpec } from "./children.js";
import { ISOLATIONS, mergeReport, WorkspaceUnavailable, type Isolation, type Workspace } from "./isolation.js";
import type { NamedAgent } from "./named-agent.js";
import type { AgentToolContext } from "../loop/loop.js";

const TOOL_NAME = "delegate_task";
const task = z.string().min(1).describe("The complete, self-contained task for the subagent, naming the exact output you need back.");
const maxSteps = z
  .number()
  .int("max_steps must be a whole number")
  .min(1, "max_steps must be at least 1")
  .optional()
  .describe("Optional: fewer model requests than the subagent's budget. It stops there, and you get its progress so far.");
const isolation = z.enum(ISOLATIONS).optional().describe('Optional: "worktree" runs it in its own git worktree, merged into your files when it ends; for writers running at once.');
const DelegateArgs = z.object({ task, max_steps: maxSteps });
// `isolation` is offered only where a child can have a worktree (the project is in a git repository).
const IsolatedArgs = z.object({ task, max_steps: maxSteps, isolation });
type DelegateArgs = z.infer<typeof IsolatedArgs> & { agent?: string };
/** The arguments with agents, with `isolation` or without: made only when a project has some. */
const withAgent = new Map<boolean, z.ZodType<DelegateArgs>>();
const DelegateArgsWithAgent = (isolatable: boolean): z.ZodType<DelegateArgs> => {
  const agent = z.string().optional();
  const made = withAgent.get(isolatable) ?? (isolatable ? z.object({ task, agent, max_steps: maxSteps, isolation }) : z.object({ task, agent, max_steps: maxSteps }));
  withAgent.set(isolatable, made);
  return made;
};

export interface DelegateDeps {
  mode: DelegateMode;
  /** The parent's live conversation; at call time it ends with the assistant message holding the call. */
  parentMessages: () => readonly Message[];
  children: Children;
  /** The named agents a call may choose, sorted by name; none: the tool is as it was without them. */
  agents?: readonly NamedAgent[];
}

export function createDelegateTool(deps: DelegateDeps): Tool<DelegateArgs, AgentToolContext> {
  const agents = deps.agents ?? [];
  // With agents, the call takes an agent's name, checked against them when it runs. The definition is
  // the plain one's (converted from zod once, as every start does) with the argument added by hand:
  // converting another schema, or a zod enum of hundreds of names, would hold up the first request.
  const isolatable = deps.children.startIsolated !== undefined;
  const argsWith = (agent: DelegateOffer["agent"]): { schema: z.ZodType<DelegateArgs>; parameters?: Record<string, unknown> } => {
    const args = isolatable ? IsolatedArgs : DelegateArgs;
    if (!agent) return { schema: args };
    const plain = toolDefinitions([{ name: TOOL_NAME, description: "", schema: args, spill: false, run: async () => "" }])[0]!.function.parameters;
    const { task: taskArg, ...rest } = plain.properties as Record<string, unknown>;
    const agentArg = { type: "string", ...(agent.names ? { enum: agent.names } : {}), description: agent.description };
    return { schema: DelegateArgsWithAgent(isolatable), parameters: { ...plain, properties: { task: taskArg, agent: agentArg, ...rest } } };
  };
  const offer = delegateOffer(delegateDescription(deps.mode), agents, (o) => definitionSize({ name: TOOL_NAME, description: o.description, ...argsWith(o.agent) }));
  return {
    name: TOOL_NAME,
    description: offer.description,
    ...argsWith(offer.agent),
    spill: true,
    async run({ task, max_steps, agent: agentName, isolation: asked }, ctx) {
      const agent = agentName === undefined ? undefined : agents.find((a) => a.name === agentName);
      if (agentName !== undefined && !agent) {
        throw new ToolError(`there is no named agent ${JSON.stringify(agentName)}; no subagent was started. Call delegate_task again with an agent named in its description, or without agent.`);
      }
      const budget = stepCeiling(deps.children.budget, agent?.maxSteps);
      if (max_steps !== undefined && max_steps > budget) {
        const own = agent !== undefined && budget < deps.children.budget.maxSteps;
        const whose = own ? `the agent ${agent.name}'s budget of ${budget} model requests (its max-steps)` : `a subagent's budget of ${budget} model requests (--child-max-steps)`;
        throw new ToolError(`max_steps ${max_steps} is more than ${whose}; no subagent was started. Call delegate_task again with max_steps ${budget} or less, or without max_steps.`);
      }
      // A named agent's mode wins over --delegate's.
      const mode = agent?.mode ?? deps.mode;
      const messages = childMessages(deps.parentMessages(), mode, task, (text) => ctx.agent.stamps.stamp(text), agent);
      const spec = { kind: "delegate" as const, mode, task, messages, maxSteps: max_steps, ...(agent ? { agent } : {}) };
      const isolated = (asked ?? agent?.isolation ?? defaultIsolation(deps.children, agent?.access ?? ctx.policy.access)) === "worktree" ? await startIsolated(deps.children, spec, ctx) : null;
      const child = isolated?.child ?? deps.children.start(spec, ctx.agent);
      const outcome = await child.turn(ctx.signal);
      const stop = outcome.exitReason === "completed" ? null : child.budgetStop();
      let merged: MergeDetails | null = null;
      try {
        merged = isolated ? await finishIsolated(isolated.workspace, outcome.exitReason === "completed" || stop !== null, ctx) : null;
      } finally {
        await child.end(outcome.answer, outcome.exitReason);
      }
      const withMerge = (text: string) => (merged ? `${text}\n\n${mergeReport(merged)}` : text);
      if (outcome.exitReason === "completed") return withMerge(outcome.answer ?? "");
      if (stop) return withMerge(`${child.lastText() ?? "(the subagent wrote no text before it was stopped)"}\n\n${budgetStopLine("the subagent", stop)}`);
      const why = outcome.error ?? outcome.exitReason;
      throw new ToolError(withMerge(`the subagent did not finish (${outcome.exitReason}: ${why}). Do the task yourself, or delegate a smaller, clearer task.`));
    },
  };
}

/** `child-isolation` is the default of delegations that may write; a reader needs no worktree. */
function defaultIsolation(children: Children, access: Access): Isolation {
  return access === "read-only" ? "none" : (children.isolation ?? "none");
}

async function startIsolated(children: Children, spec: ChildSpec, ctx: AgentToolContext): Promise<{ child: Child; workspace: Workspace }> {
  try {
    if (!children.startIsolated) throw new WorkspaceUnavailable("the project is not a git repository (its folder has no .git)");
    return await children.startIsolated(spec, ctx.agent);
  } catch (error) {
    if (!(error instanceof WorkspaceUnavailable)) throw error;
    throw new ToolError(`isolation "worktree" needs a git worktree, and ${error.message}; no subagent was started and nothing was changed. Call delegate_task again without isolation, or do the task yourself.`);
  }
}

/** Merges a child that finished (or stopped at a budget, with its progress); keeps one that did not. Reported as the call's details too. */
async function finishIsolated(workspace: Workspace, merge: boolean, ctx: AgentToolContext): Promise<MergeDetails> {
  const { name, branch } = workspace.worktree;
  let details: MergeDetails;
  try {
    details = merge ? await workspace.merge(ctx.changes, ctx.signal) : await workspace.keep();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ToolError(
      `the subagent ended, but its worktree ${name} could not be ${merge ? "merged" : "committed"} (${why}); its work stays on branch ${branch}. Tell the user to run \`hel worktrees merge ${name}\` or \`hel worktrees rm ${name}\`.`,
    );
  }
  ctx.report.recordDetails(details);
  return details;
}

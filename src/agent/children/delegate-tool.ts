// delegate_task: runs a child agent on the same loop, in this process, and returns only its final
// answer as the tool result. The child gets the parent's model, system prompt, tool list (this tool
// included, so the cached prefix is shared), project directory and access, and the child budget; a
// call may ask for fewer steps than the budget, never more. With named agents (named-agent.ts) the call
// may name one: its mode, instructions, tools, model, steps and access then shape the child
// (delegate-offer.ts says how the tool lists them). A child a budget stopped returns its last text and
// a line naming the budget; one that failed otherwise returns an error the parent can act on.
// Consecutive calls in one message run their children at the same time (the catalogue says so).
import { z } from "../../zod.js";
import { toolDefinitions } from "../../tools/registry.js";
import { ToolError, type Tool } from "../../tools/types.js";
import type { Message } from "../../wire/messages.js";
import { budgetStopLine, stepCeiling } from "./child-budget.js";
import { childMessages, delegateDescription } from "./child-messages.js";
import { definitionSize, delegateOffer, type DelegateOffer } from "./delegate-offer.js";
import type { DelegateMode } from "../events.js";
import type { Children } from "./children.js";
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
const DelegateArgs = z.object({ task, max_steps: maxSteps });
type DelegateArgs = z.infer<typeof DelegateArgs> & { agent?: string };
/** The arguments with agents: made only when a project has some. */
let withAgent: z.ZodType<DelegateArgs> | undefined;
const DelegateArgsWithAgent = (): z.ZodType<DelegateArgs> => (withAgent ??= z.object({ task, agent: z.string().optional(), max_steps: maxSteps }));

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
  const argsWith = (agent: DelegateOffer["agent"]): { schema: z.ZodType<DelegateArgs>; parameters?: Record<string, unknown> } => {
    if (!agent) return { schema: DelegateArgs };
    const plain = toolDefinitions([{ name: TOOL_NAME, description: "", schema: DelegateArgs, spill: false, run: async () => "" }])[0]!.function.parameters;
    const { task: taskArg, ...rest } = plain.properties as Record<string, unknown>;
    const agentArg = { type: "string", ...(agent.names ? { enum: agent.names } : {}), description: agent.description };
    return { schema: DelegateArgsWithAgent(), parameters: { ...plain, properties: { task: taskArg, agent: agentArg, ...rest } } };
  };
  const offer = delegateOffer(delegateDescription(deps.mode), agents, (o) => definitionSize({ name: TOOL_NAME, description: o.description, ...argsWith(o.agent) }));
  return {
    name: TOOL_NAME,
    description: offer.description,
    ...argsWith(offer.agent),
    spill: true,
    async run({ task, max_steps, agent: agentName }, ctx) {
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
      const child = deps.children.start({ kind: "delegate", mode, task, messages, maxSteps: max_steps, ...(agent ? { agent } : {}) }, ctx.agent);
      const outcome = await child.turn(ctx.signal);
      await child.end(outcome.answer, outcome.exitReason);
      if (outcome.exitReason === "completed") return outcome.answer ?? "";
      const stop = child.budgetStop();
      if (stop) return `${child.lastText() ?? "(the subagent wrote no text before it was stopped)"}\n\n${budgetStopLine("the subagent", stop)}`;
      const why = outcome.error ?? outcome.exitReason;
      throw new ToolError(`the subagent did not finish (${outcome.exitReason}: ${why}). Do the task yourself, or delegate a smaller, clearer task.`);
    },
  };
}

// delegate_task: runs a child agent on the same loop, in this process, and returns only its final
// answer as the tool result. The child gets the parent's model, system prompt, tool list (this tool
// included, so the cached prefix is shared), project directory and access, and the child budget; a
// call may ask for fewer steps than the budget, never more. A child a budget stopped returns its last
// text and a line naming the budget; one that failed otherwise returns an error the parent can act on.
// Consecutive calls in one message run their children at the same time (the catalogue says so).
import { z } from "../../zod.js";
import { ToolError, type Tool } from "../../tools/types.js";
import type { Message } from "../../wire/messages.js";
import { budgetStopLine } from "./child-budget.js";
import { childMessages, delegateDescription } from "./child-messages.js";
import type { DelegateMode } from "../events.js";
import type { Children } from "./child-run.js";
import type { AgentToolContext } from "../loop/loop.js";

const DelegateArgs = z.object({
  task: z.string().min(1).describe("The complete, self-contained task for the subagent, naming the exact output you need back."),
  max_steps: z
    .number()
    .int("max_steps must be a whole number")
    .min(1, "max_steps must be at least 1")
    .optional()
    .describe("Optional: fewer model requests than the subagent's budget. It stops there, and you get its progress so far."),
});
type DelegateArgs = z.infer<typeof DelegateArgs>;

export interface DelegateDeps {
  mode: DelegateMode;
  /** The parent's live conversation; at call time it ends with the assistant message holding the call. */
  parentMessages: () => readonly Message[];
  children: Children;
}

export function createDelegateTool(deps: DelegateDeps): Tool<DelegateArgs, AgentToolContext> {
  return {
    name: "delegate_task",
    description: delegateDescription(deps.mode),
    schema: DelegateArgs,
    spill: true,
    async run({ task, max_steps }, ctx) {
      const budget = deps.children.budget.maxSteps;
      if (max_steps !== undefined && max_steps > budget) {
        throw new ToolError(
          `max_steps ${max_steps} is more than a subagent's budget of ${budget} model requests (--child-max-steps); no subagent was started. Call delegate_task again with max_steps ${budget} or less, or without max_steps.`,
        );
      }
      const messages = childMessages(deps.parentMessages(), deps.mode, task, (text) => ctx.agent.stamps.stamp(text));
      const child = deps.children.start({ kind: "delegate", mode: deps.mode, task, messages, maxSteps: max_steps }, ctx.agent);
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

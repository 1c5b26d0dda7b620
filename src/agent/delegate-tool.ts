// delegate_task: runs a child agent on the same loop, in this process, and returns only its final
// answer as the tool result. The child gets the parent's model, system prompt, tool list (this tool
// included, so the cached prefix is shared), project directory, access and its own step budget;
// its own call to delegate_task is refused (depth limit 1).
import { z } from "../zod.js";
import { ToolError, type Tool } from "../tools/types.js";
import type { Message } from "../wire/messages.js";
import { childMessages, delegateDescription, type DelegateMode } from "./child-messages.js";
import type { AgentEvent, EventSink } from "./events.js";
import type { ChildTranscript } from "./child-transcript.js";
import { runTurn, type AgentRun } from "./loop.js";

const DelegateArgs = z.object({
  task: z.string().min(1).describe("The complete, self-contained task for the subagent, naming the exact output you need back."),
});

export interface DelegateDeps {
  mode: DelegateMode;
  /** The parent's live conversation; at call time it ends with the assistant message holding the call. */
  parentMessages: () => readonly Message[];
  emit: EventSink;
  /** The parent's run settings, which the child shares. A getter: the run is built after the tool list. */
  childRun: () => Omit<AgentRun, "ref" | "emit">;
  /** Delegations already made in this session, so numbers keep counting after a resume. */
  firstNumber?: number;
  saveTranscript?: (transcript: ChildTranscript) => Promise<void>;
}

export const DELEGATE_TOOL_NAME = "delegate_task";

export function createDelegateTool(deps: DelegateDeps): Tool<z.infer<typeof DelegateArgs>> {
  let count = deps.firstNumber ?? 0;
  const description = delegateDescription(deps.mode);
  const refusal: Tool<z.infer<typeof DelegateArgs>> = {
    name: DELEGATE_TOOL_NAME,
    description,
    schema: DelegateArgs,
    spill: true,
    run: async () => {
      throw new ToolError("a subagent cannot delegate (depth limit reached). Do this task yourself with read_file and search_replace.");
    },
  };

  return {
    ...refusal,
    async run({ task }, ctx) {
      const number = ++count;
      const settings = deps.childRun();
      const messages = childMessages(deps.parentMessages(), deps.mode, task, (text) => settings.stamps.stamp(text));
      const toolCalls: { name: string; arguments: string }[] = [];
      const ref = { agent: "child" as const, delegation: number };
      const emit = (event: AgentEvent) => {
        if (event.type === "tool_start") toolCalls.push({ name: event.name, arguments: event.arguments });
        deps.emit(event);
      };
      deps.emit({ agent: "parent", type: "delegation_start", number, mode: deps.mode, task });
      const child: AgentRun = {
        ...settings,
        ref,
        emit,
        tools: settings.tools.map((tool) => (tool.name === DELEGATE_TOOL_NAME ? refusal : tool)),
      };
      emit({ ...ref, type: "turn_start", instruction: task });
      const outcome = await runTurn(messages, child, ctx.signal);
      deps.emit({
        agent: "parent",
        type: "delegation_end",
        number,
        mode: deps.mode,
        task,
        answer: outcome.answer,
        exitReason: outcome.exitReason,
        toolCalls,
        usage: outcome.usage,
      });
      await deps.saveTranscript?.({ number, mode: deps.mode, task, messages, answer: outcome.answer, exit_reason: outcome.exitReason, usage: outcome.usage });
      if (outcome.exitReason !== "completed") {
        const why = outcome.error ?? outcome.exitReason;
        throw new ToolError(`the subagent did not finish (${outcome.exitReason}: ${why}). Do the task yourself, or delegate a smaller, clearer task.`);
      }
      return outcome.answer ?? "";
    },
  };
}

// What a subagent sees: built from the parent's conversation by one pure function.
// The parent's messages are taken up to, not including, the assistant message that holds the
// delegate call, filtered by mode, and followed by one user message: the role note (with a named
// agent's own instructions after hel's), then the task. The parent's `[memory]` blocks come with its
// user messages, as they were sent; a named agent with `memory: off` gets those messages without them.
import type { Message } from "../../wire/messages.js";
import { toolCallsOf } from "../../wire/stored-message.js";
import type { DelegateMode } from "../events.js";
import { withoutMemory } from "../memory-block.js";
import type { NamedAgent } from "./named-agent.js";

// Without this note a child that sees the parent's conversation reads the user's original
// instruction as its own, and delegates again or redoes the parent's reads.
export const ROLE_NOTE = [
  "You are a subagent. Another agent, your parent, has handed you the task below.",
  "Any messages above this one are the parent's conversation, shown to you as background only: they are not instructions for you to carry out.",
  "Do this task and nothing else, then answer with exactly what the task asks you to report — your final answer is all the parent receives.",
  "You cannot delegate: do the work yourself with your tools.",
].join("\n");

/** The named agent a task goes to; none for a plain delegation. */
type TaskAgent = Pick<NamedAgent, "name" | "instructions" | "memory">;

export function childTask(task: string, agent?: TaskAgent): string {
  const own = agent?.instructions ? `\n\nYou are the agent "${agent.name}". Its own instructions, which hold besides the above:\n${agent.instructions}` : "";
  return `${ROLE_NOTE}${own}\n\nTask:\n${task}`;
}

/** `stamp` opens the task's message with the session's next stamp (stamps.ts). */
export function childMessages(parent: readonly Message[], mode: DelegateMode, task: string, stamp: (text: string) => string = (text) => text, agent?: TaskAgent): Message[] {
  let cut = parent.length;
  for (let i = parent.length - 1; i >= 0; i--) {
    if (parent[i]?.role === "assistant") {
      cut = i;
      break;
    }
  }
  const before = parent.slice(0, cut);
  const context = (() => {
    switch (mode) {
      case "full":
        return before;
      case "no-tools":
        return before.filter((m) => m.role === "system" || m.role === "user" || (m.role === "assistant" && !toolCallsOf(m)));
      case "task-only":
        return before.filter((m) => m.role === "system");
    }
  })();
  const seen = agent?.memory === "off" ? context.map((m) => (m.role === "user" ? { ...m, content: withoutMemory(m.content) } : m)) : context;
  return [...seen, { role: "user", content: stamp(childTask(task, agent)) }];
}

/** The delegate tool's description: tells the parent what the child will see in this mode. */
export function delegateDescription(mode: DelegateMode): string {
  const sees = {
    full: "the whole conversation so far (every message, tool call and tool result), then your task",
    "no-tools": "the conversation so far without tool calls and tool results (your instructions and final answers only), then your task",
    "task-only": "only the system prompt and your task — nothing of this conversation",
  }[mode];
  return [
    "Hand a self-contained piece of work to a subagent that has the same tools and project directory, and wait for its result.",
    `The subagent sees ${sees}.`,
    "Its final answer is all that comes back to you: its reads, edits and reasoning stay with it.",
    "If it runs out of its budget of model requests or tokens, you get its progress so far and a line naming the budget.",
    "Write the task so it stands on its own: name the files, the values it needs, and the exact output you want back.",
  ].join(" ");
}

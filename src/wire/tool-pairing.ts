// The tool-call pairing rule DeepSeek holds a request to: each assistant message with tool calls is
// followed directly by one tool message per call, and no tool message answers anything else. A pure
// check of a message list, for whatever builds or replaces one (a save, a resume, a compaction).
import type { Message } from "./messages.js";
import { toolCallsOf } from "./stored-message.js";

/** What breaks the rule first, said with the index of the message at fault; null when nothing does. */
export function findToolPairingError(messages: readonly Message[]): string | null {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "tool") return `the tool result in messages[${i}] answers no tool call (tool_call_id ${m.tool_call_id})`;
    // A resumed message is not parsed for this: its role, tool_call_id and call ids are kept aside.
    const calls = toolCallsOf(m);
    if (!calls) continue;
    const pending = new Map(calls.map((c) => [c.id, c]));
    if (pending.size !== calls.length) return `messages[${i}] uses the same tool call id twice`;
    let j = i + 1;
    for (; j < messages.length; j++) {
      const t = messages[j]!;
      if (t.role !== "tool") break;
      if (!pending.delete(t.tool_call_id)) {
        return `the tool result in messages[${j}] answers no tool call of messages[${i}] (tool_call_id ${t.tool_call_id})`;
      }
    }
    const missing = pending.values().next();
    if (!missing.done) return `tool call ${missing.value.id} (${missing.value.function.name}) in messages[${i}] has no result`;
    i = j - 1;
  }
  return null;
}

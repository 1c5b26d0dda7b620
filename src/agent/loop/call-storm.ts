// Call storms: the model making the same call again and again. Pure: from the agent's own
// conversation, whether a call about to run is the third identical one (same tool, same arguments
// text: a model repeating itself repeats the text)
// among its last six, with no call between that may have changed files; if so, the stamp of the
// latest identical result that was run, which the refusal names. The calls are read back from the
// conversation since its last user message, so a new instruction starts afresh and a resumed or
// folded conversation is judged by what it holds.
import type { Message, ToolCall } from "../../wire/messages.js";
import { stampOf } from "../stamps.js";

const WINDOW = 6;
const LIMIT = 3;
/** Tools that only read (the project, or the conversation's archive): every other call may change files. */
const READERS = new Set(["read_file", "grep", "find_files", "fold", "recall", "ask", "review_changes"]);
/** What a refused call's result opens with, so a later refusal never names another refusal. */
export const STORM_RESULT = "this call was not run:";

interface Past {
  name: string;
  args: string;
  result: Message;
}

/** When `call` should not run, the stamp of the earlier identical result to name (null if unstamped); null when it may run. */
export function stormRepeat(view: readonly Message[], call: ToolCall): { stamp: number | null } | null {
  const past = recentCalls(view, WINDOW - 1);
  const { name, arguments: args } = call.function;
  const same = (p: Past) => p.name === name && p.args === args;
  let identical = 0;
  for (const p of past) {
    if (same(p)) identical++;
    else if (!READERS.has(p.name)) break;
  }
  if (identical < LIMIT - 1) return null;
  const named = past.find((p) => same(p) && !refused(p.result)) ?? past.find(same)!;
  return { stamp: stampOf(named.result) };
}

export function stormResult(name: string, stamp: number | null): string {
  const earlier = stamp === null ? "an earlier identical call" : `#${stamp}`;
  return `Error: ${STORM_RESULT} it is the third identical ${name} call in a row, and nothing that could change its result happened since ${earlier}, whose result stands. Take a different step: another tool, other arguments, or your answer.`;
}

const refused = (result: Message): boolean => result.role === "tool" && result.content.includes(`Error: ${STORM_RESULT}`);

/** Up to `count` calls with their results, latest first, back to the last user message. */
function recentCalls(view: readonly Message[], count: number): Past[] {
  const results = new Map<string, Message>();
  const out: Past[] = [];
  for (let i = view.length - 1; i >= 0 && out.length < count; i--) {
    const m = view[i]!;
    if (m.role === "user") break;
    if (m.role === "tool") results.set(m.tool_call_id, m);
    if (m.role !== "assistant" || !m.tool_calls) continue;
    for (let j = m.tool_calls.length - 1; j >= 0 && out.length < count; j--) {
      const c = m.tool_calls[j]!;
      const result = results.get(c.id);
      if (result) out.push({ name: c.function.name, args: c.function.arguments, result });
    }
  }
  return out;
}

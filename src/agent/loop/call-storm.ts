// Call storms: the model making the same call again and again. Pure: from the agent's own
// conversation, whether a call about to run is the third identical one (same tool, same arguments
// text: a model repeating itself repeats the text)
// among its last six, with no call between that may have changed files; if so, the stamp of the
// latest identical result that was run, which the refusal names. The calls are read back from the
// conversation since its last user message, so a new instruction starts afresh and a resumed or
// folded conversation is judged by what it holds. A call that may run costs a walk over the last few
// calls' names and texts; results are looked at only for a call that may not.
import { traitsOf } from "../toolbox.js";
import type { Message, ToolCall } from "../../wire/messages.js";
import { stampOf } from "../stamps.js";

const WINDOW = 6;
const LIMIT = 3;
/** A call of a tool the catalogue does not know to only read may have changed files. */
const onlyReads = (name: string): boolean => traitsOf(name)?.readsOnly === true;
/** What a refused call's result opens with, so a later refusal never names another refusal. */
const STORM_RESULT = "this call was not run:";

/** When `call` should not run, the stamp of the earlier identical result to name (null if unstamped); null when it may run. */
export function stormRepeat(view: readonly Message[], call: ToolCall): { stamp: number | null } | null {
  const { name, arguments: args } = call.function;
  if (traitsOf(name)?.polls) return null;
  let seen = 0;
  let identical = 0;
  let current = true;
  walk: for (let i = view.length - 1; i >= 0 && seen < WINDOW - 1; i--) {
    const m = view[i]!;
    if (m.role === "user") break;
    if (m.role !== "assistant" || !m.tool_calls) continue;
    const calls = m.tool_calls;
    let j = calls.length - 1;
    // The first message back holds the call itself: only the calls before it have been made.
    if (current) {
      current = false;
      const at = calls.findIndex((c) => c.id === call.id);
      if (at >= 0) j = at - 1;
    }
    for (; j >= 0 && seen < WINDOW - 1; j--, seen++) {
      const c = calls[j]!.function;
      if (c.name === name && c.arguments === args) identical++;
      else if (!onlyReads(c.name)) break walk;
    }
  }
  return identical < LIMIT - 1 ? null : { stamp: earlierStamp(view, call) };
}

export function stormResult(name: string, stamp: number | null): string {
  const earlier = stamp === null ? "an earlier identical call" : `#${stamp}`;
  return `Error: ${STORM_RESULT} it is the third identical ${name} call in a row, and nothing that could change its result happened since ${earlier}, whose result stands. Take a different step: another tool, other arguments, or your answer.`;
}

/** The stamp of the latest result of an identical call that was run (a refusal only if none was). */
function earlierStamp(view: readonly Message[], call: ToolCall): number | null {
  const results = new Map<string, Message>();
  let fallback: number | null = null;
  for (let i = view.length - 1; i >= 0; i--) {
    const m = view[i]!;
    if (m.role === "user") break;
    if (m.role === "tool") results.set(m.tool_call_id, m);
    if (m.role !== "assistant" || !m.tool_calls) continue;
    for (let j = m.tool_calls.length - 1; j >= 0; j--) {
      const c = m.tool_calls[j]!;
      const result = results.get(c.id);
      if (!result || c.function.name !== call.function.name || c.function.arguments !== call.function.arguments) continue;
      if (!refused(result)) return stampOf(result);
      fallback ??= stampOf(result);
    }
  }
  return fallback;
}

const refused = (result: Message): boolean => result.role === "tool" && result.content.includes(`Error: ${STORM_RESULT}`);

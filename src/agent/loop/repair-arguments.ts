// Tool-call arguments that are not JSON (a stream that lost chunks, a lone "{"). Such a call is never
// run, and its arguments are never sent back as they came: DeepSeek refuses a history that holds them.
// Pure: an answer in; out, when some call's arguments do not parse, the answer with `{}` in their
// place and each such call's text as it came, for its result to say where it broke.
import type { AssistantMessage } from "../../wire/messages.js";

export interface UnparsedArguments {
  message: AssistantMessage;
  /** The arguments as the model sent them, by call id. */
  raw: Map<string, string>;
}

export function unparsedArguments(message: AssistantMessage): UnparsedArguments | null {
  const calls = message.tool_calls;
  if (!calls) return null;
  let raw: Map<string, string> | null = null;
  for (const call of calls) if (!parses(call.function.arguments)) (raw ??= new Map()).set(call.id, call.function.arguments);
  if (raw === null) return null;
  const broken = raw;
  return {
    message: { ...message, tool_calls: calls.map((c) => (broken.has(c.id) ? { ...c, function: { ...c.function, arguments: "{}" } } : c)) },
    raw: broken,
  };
}

/** Some models send "" for a call without arguments; the tools read it as `{}`, and DeepSeek accepts it. */
function parses(text: string): boolean {
  if (text.trim() === "") return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

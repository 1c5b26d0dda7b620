// Tool calls written as text. DeepSeek's chat template spells tool calls as DSML markup, and the model
// sometimes writes that markup into `content` (or, answering nothing else, into `reasoning_content`)
// instead of `tool_calls`. Pure: an answer without calls in, the same answer with the invokes of every
// block that parses as real calls and those blocks taken out of its text, or null when there is none.
// A block that does not parse whole is left as text; a tool that is not offered is still called, so
// the model gets the usual unknown-tool result.
import { createHash } from "node:crypto";
import type { AssistantMessage, ToolCall } from "../../wire/messages.js";

// The bar is the full-width U+FF5C in most model builds, an ASCII `|` in some.
const BAR = "[｜|]";
const TAG = `${BAR}DSML${BAR}\\s*`;
// The block's name changed between model versions: function_calls, tool_calls, calls.
const BLOCK = new RegExp(`<${TAG}(function_calls|tool_calls|calls)\\s*>([^]*?)</${TAG}\\1\\s*>`, "g");
const INVOKE = new RegExp(`^\\s*<${TAG}invoke\\s+name\\s*=\\s*"([^"]*)"\\s*>([^]*?)</${TAG}invoke\\s*>`);
const PARAMETER = new RegExp(`^\\s*<${TAG}parameter\\s+name\\s*=\\s*"([^"]*)"(?:\\s+string\\s*=\\s*"(true|false)")?\\s*>([^]*?)</${TAG}parameter\\s*>`);

/** An answer with no tool calls whose text holds markup that parses: the answer as it should have come. */
export function callsFromMarkup(message: AssistantMessage, position: number): AssistantMessage | null {
  if (message.tool_calls) return null;
  const content = message.content ?? "";
  const reasoning = message.reasoning_content ?? "";
  // Reasoning is read only when it is the whole answer: otherwise it is the model thinking aloud.
  const inContent = content.includes("DSML");
  if (!inContent && (content.trim() !== "" || !reasoning.includes("DSML"))) return null;
  const found = extract(inContent ? content : reasoning);
  if (!found) return null;
  const digest = createHash("sha256")
    .update(`${position}\n${inContent ? content : reasoning}`)
    .digest("base64url");
  const calls: ToolCall[] = found.calls.map((call, i) => ({
    // Shaped like DeepSeek's ids, and the same for the same answer at the same place, so a resend is stable.
    id: `call_${String(i).padStart(2, "0")}_${digest.replace(/[-_]/g, "").slice(0, 24)}`,
    type: "function",
    function: call,
  }));
  return {
    role: "assistant",
    content: inContent ? found.text : content,
    reasoning_content: inContent ? reasoning : found.text,
    tool_calls: calls,
  };
}

/** The calls of every block that parses, and the text without those blocks; null when no block parses. */
function extract(text: string): { calls: { name: string; arguments: string }[]; text: string } | null {
  const calls: { name: string; arguments: string }[] = [];
  const rest = text.replace(BLOCK, (block, _name: string, inner: string) => {
    const parsed = invokes(inner);
    if (!parsed) return block;
    calls.push(...parsed);
    return "";
  });
  return calls.length === 0 ? null : { calls, text: rest.replace(/\n{3,}/g, "\n\n").trim() };
}

function invokes(inner: string): { name: string; arguments: string }[] | null {
  const calls: { name: string; arguments: string }[] = [];
  let rest = inner;
  for (let m = INVOKE.exec(rest); m; m = INVOKE.exec(rest)) {
    const args = argumentsOf(m[2]!);
    if (args === null || m[1]!.trim() === "") return null;
    calls.push({ name: m[1]!.trim(), arguments: args });
    rest = rest.slice(m[0].length);
  }
  return calls.length > 0 && rest.trim() === "" ? calls : null;
}

/** An invoke's body as JSON arguments: one JSON object, or parameter elements; null when it is neither. */
function argumentsOf(body: string): string | null {
  const trimmed = body.trim();
  if (trimmed === "") return "{}";
  if (trimmed.startsWith("{")) {
    const value = parseJson(trimmed);
    return isObject(value) ? JSON.stringify(value) : null;
  }
  const args: Record<string, unknown> = {};
  let rest = body;
  for (let m = PARAMETER.exec(rest); m; m = PARAMETER.exec(rest)) {
    // string="false": the value is JSON (a number, a list, an object); otherwise it is the text itself.
    if (m[2] === "false") {
      const value = parseJson(m[3]!.trim());
      if (value === undefined) return null;
      args[m[1]!] = value;
    } else args[m[1]!] = m[3]!;
    rest = rest.slice(m[0].length);
  }
  return Object.keys(args).length > 0 && rest.trim() === "" ? JSON.stringify(args) : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

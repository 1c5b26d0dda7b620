// DeepSeek's chat-template tool-call markup (DSML), written as text the way the model sometimes
// writes it into `content` or `reasoning_content` instead of making real tool calls. Contract: the
// calls come out as one block of the chosen spelling, each an invoke holding parameter elements
// (`string="true"` for a string, `string="false"` for any other JSON value) or one JSON object.
import type { SimMarkup } from "./types.js";

export function markupText(calls: readonly { name: string; arguments: string }[], style: SimMarkup): string {
  const bar = style.bar === "ascii" ? "|" : "｜";
  const tag = `${bar}DSML${bar}`;
  const block = style.block ?? "function_calls";
  const invoke = style.spacedInvoke ? `${tag} invoke` : `${tag}invoke`;
  const lines = [`<${tag}${block}>`];
  for (const call of calls) {
    lines.push(`<${invoke} name="${call.name}">`);
    if (style.params === "json") lines.push(call.arguments);
    else
      for (const [key, value] of Object.entries(JSON.parse(call.arguments) as Record<string, unknown>)) {
        const text = typeof value === "string" ? value : JSON.stringify(value);
        lines.push(`<${tag}parameter name="${key}" string="${typeof value === "string"}">${text}</${tag}parameter>`);
      }
    lines.push(`</${invoke}>`);
  }
  lines.push(`</${tag}${block}>`);
  return lines.join("\n");
}

// What an interactive resume shows first, so the user knows where the conversation stands: its last
// few instructions, each with the start of the answer it got, every line within the terminal's width.
// Pure.
import { unstamped } from "../../agent/stamps.js";
import type { Message } from "../../wire/messages.js";
import { terminalSafe, visibleWidth, type Style } from "./kit/style.js";

const EXCHANGES = 3;
const ANSWER_LINES = 4;
const LINE_CHARS = 160;

/** `width`: the columns a line may take. */
export function formatRecentExchanges(messages: readonly Message[], style: Style, width: number): string[] {
  const exchanges: { instruction: string; answer: string | null }[] = [];
  for (const message of messages) {
    if (message.role === "user") exchanges.push({ instruction: unstamped(message.content), answer: null });
    else if (message.role === "assistant" && !message.tool_calls?.length && exchanges.length > 0) {
      exchanges.at(-1)!.answer = message.content ?? "";
    }
  }
  if (exchanges.length === 0) return [];
  const shown = exchanges.slice(-EXCHANGES);
  const out = [style.dim(`── the last ${shown.length} of ${exchanges.length} instructions ──`)];
  for (const { instruction, answer } of shown) {
    const lines = instruction.split("\n");
    const more = lines.length > 1 ? style.dim(` (+${lines.length - 1} lines)`) : "";
    out.push(`› ${cut(lines[0] ?? "", width - 2 - visibleWidth(more))}${more}`);
    const answerLines = (answer ?? "")
      .trim()
      .split("\n")
      .filter((l) => l.trim() !== "");
    if (answer === null) out.push(style.dim("  (no answer)"));
    for (const line of answerLines.slice(0, ANSWER_LINES)) out.push(style.dim(`  ${cut(line, width - 2)}`));
    if (answerLines.length > ANSWER_LINES) out.push(style.dim(`  … ${answerLines.length - ANSWER_LINES} more lines`));
  }
  return out;
}

function cut(line: string, room: number): string {
  const safe = Array.from(terminalSafe(line));
  const max = Math.min(LINE_CHARS, room);
  return safe.length > max ? `${safe.slice(0, max - 1).join("")}…` : safe.join("");
}

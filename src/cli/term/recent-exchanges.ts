// What an interactive resume shows first, so the user knows where the conversation stands: its last
// few instructions, each with the start of the answer it got. Pure.
import { unstamped } from "../../agent/stamps.js";
import type { Message } from "../../wire/messages.js";
import { terminalSafe, type Style } from "./style.js";

const EXCHANGES = 3;
const ANSWER_LINES = 4;
const LINE_CHARS = 160;

export function formatRecentExchanges(messages: readonly Message[], style: Style): string[] {
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
    out.push(`› ${cut(lines[0] ?? "")}${lines.length > 1 ? style.dim(` (+${lines.length - 1} lines)`) : ""}`);
    const answerLines = (answer ?? "").trim().split("\n").filter((l) => l.trim() !== "");
    if (answer === null) out.push(style.dim("  (no answer)"));
    for (const line of answerLines.slice(0, ANSWER_LINES)) out.push(style.dim(`  ${cut(line)}`));
    if (answerLines.length > ANSWER_LINES) out.push(style.dim(`  … ${answerLines.length - ANSWER_LINES} more lines`));
  }
  return out;
}

function cut(line: string): string {
  const safe = terminalSafe(line);
  return safe.length > LINE_CHARS ? `${safe.slice(0, LINE_CHARS - 1)}…` : safe;
}

// The todo list as the terminal shows it: a head line with the tally, then a window of a few items
// around the one in progress (the done ones before it scroll away first), and how many more follow.
// The live region fits each line to the terminal's width; the items' words are the model's, so they
// are made safe for the terminal here. Pure.
import { todoTally, type TodoItem } from "../../agent/todo-list.js";
import { terminalSafe } from "./kit/style.js";

/** Items shown at once, besides the head line and the line that counts the rest. */
const WINDOW = 3;
const MARK: Record<TodoItem["status"], string> = { done: "✓", in_progress: "▸", pending: "·" };

export function todoLines(items: readonly TodoItem[]): string[] {
  if (items.length === 0) return [];
  const current = items.findIndex((item) => item.status !== "done");
  // One item before the current one stays in view, so the user sees what was just done.
  const start = current < 0 ? Math.max(0, items.length - WINDOW) : Math.max(0, Math.min(current - 1, items.length - WINDOW));
  const shown = items.slice(start, start + WINDOW).map((item) => `  ${MARK[item.status]} ${oneLine(item.text)}`);
  const after = items.length - start - shown.length;
  return [`todo: ${todoTally(items)}`, ...shown, ...(after > 0 ? [`  … ${after} more`] : [])];
}

/** One line for a view that cannot redraw (stderr not a terminal): the tally and the item in progress. */
export function todoLine(items: readonly TodoItem[]): string {
  const now = items.find((item) => item.status === "in_progress");
  return `todo: ${todoTally(items)}${now ? ` — now: ${oneLine(now.text)}` : ""}`;
}

const oneLine = (text: string) => terminalSafe(text.replace(/\s+/g, " ").trim());

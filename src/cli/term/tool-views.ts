// How each tool call looks in the terminal: the line that says what it does when it starts, and the
// lines that follow when it ends (an edit's diff, a failure's first line). A tool without a view of
// its own is shown by name and arguments, cut to one line. Pure: the renderer prints what these return.
import type { AgentEvent } from "../../agent/events.js";
import { formatEdit } from "./diff-view.js";
import { terminalSafe, type Style } from "./style.js";

type ToolEnd = Extract<AgentEvent, { type: "tool_end" }>;

const MAX_ARG_CHARS = 100;
/** An edit's diff in the live view stops here; `hel sessions show` shows all of it. */
const LIVE_DIFF_LINES = 40;

/** What the call does, in a few words: "search_replace src/a.ts", or the name and its arguments. */
export function toolCallLabel(name: string, args: string): string {
  if (name === "search_replace") {
    const path = stringField(args, "path");
    if (path !== undefined) return `${name} ${terminalSafe(path)}`;
  }
  return `${name} ${truncate(terminalSafe(args.replace(/\s+/g, " ")), MAX_ARG_CHARS)}`;
}

/** What is shown under the call when it ends; `indent` puts a subagent's lines under its own. */
export function toolEndLines(event: ToolEnd, style: Style, indent: string): string[] {
  if (event.isError) return [`${indent}  ${style.red("✗")} ${firstLine(terminalSafe(event.result))}`];
  if (event.edit) return formatEdit(event.edit, { style, indent: `${indent}  `, maxLines: LIVE_DIFF_LINES });
  return [];
}

function stringField(args: string, field: string): string | undefined {
  try {
    const value: unknown = (JSON.parse(args) as Record<string, unknown>)[field];
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

export const firstLine = (text: string) => truncate(text.split("\n", 1)[0] ?? "", 160);
const truncate = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1) + "…" : text);

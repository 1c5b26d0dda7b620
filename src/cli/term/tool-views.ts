// How each tool call looks in the terminal, one row per tool with a look of its own: the words that
// say what it does when it starts; or a live view that takes the call over while it runs (a
// command's output); or, for a search, nothing until it ends and then one line with its outcome;
// and under every call when it ends, an edit's diff or a failure's first line. A tool without a row
// is shown by name and arguments, cut to one line. The outcome is read from the result's details,
// never from its text. Pure but for the live views, which write to the output they are given.
import type { AgentEvent } from "../../agent/events.js";
import { count } from "../../format.js";
import { runCommandTool } from "../../tools/command/run-command.js";
import { searchReplaceTool } from "../../tools/file/search-replace.js";
import { findFilesTool, grepTool } from "../../tools/search/tools.js";
import type { SearchDetails } from "../../tools/types.js";
import { TODO_TOOL_NAME } from "../../agent/todo.js";
import { todoTally, TodoListSchema } from "../../agent/todo-list.js";
import { createCommandView, type LiveView } from "./command-view.js";
import { formatEdit } from "./kit/diff-view.js";
import type { Output } from "../../output.js";
import { terminalSafe, truncate, type Style } from "./kit/style.js";

type ToolEnd = Extract<AgentEvent, { type: "tool_end" }>;
/** A call's arguments as the model sent them, parsed once; null when they are not a JSON object. */
export type CallArgs = Readonly<Record<string, unknown>> | null;

export interface ToolLook {
  /** What the call does, in a few words, when that is not its name and arguments; undefined: those. */
  label?(args: CallArgs): string | undefined;
  /** Makes the view that shows the call while it runs (one per terminal view). */
  live?(out: Output): LiveView;
  /** Shown once the call ended, as one line, instead of a line when it starts. */
  summary?(args: CallArgs, end: ToolEnd): string;
}

const MAX_ARG_CHARS = 100;
/** An edit's diff in the live view stops here; `hel sessions show` shows all of it. */
const LIVE_DIFF_LINES = 40;

const searchLook = (outcome: (details: SearchDetails) => string): ToolLook => ({
  summary: (args, end) => {
    const what = typeof args?.pattern === "string" ? ` ${JSON.stringify(args.pattern)}` : typeof args?.cursor === "string" ? " (continued)" : "";
    const where = typeof args?.path === "string" && args.path !== "." ? ` in ${args.path}` : "";
    const only = typeof args?.glob === "string" ? ` (${args.glob})` : "";
    // Nothing found: the result's own words say where it looked.
    const found = end.isError ? "failed" : end.details?.kind === "search" && end.details.matches > 0 ? outcome(end.details) : (end.result.split("\n", 1)[0] ?? "");
    return `${end.name}${what}${where}${only} — ${found}`;
  },
});

const LOOKS: ReadonlyMap<string, ToolLook> = new Map<string, ToolLook>([
  [searchReplaceTool.name, { label: (args) => (typeof args?.path === "string" ? terminalSafe(args.path) : undefined) }],
  [runCommandTool.name, { live: createCommandView }],
  [
    grepTool.name,
    searchLook(({ matches, unit, files, more }) => {
      const shown = more ? " shown, more follow" : "";
      return unit === "file" ? `${count(files, "matching file")}${shown}` : `${count(matches, "match", "matches")} in ${count(files, "file")}${shown}`;
    }),
  ],
  [
    TODO_TOOL_NAME,
    {
      label: (args) => {
        const items = TodoListSchema.safeParse(args?.items);
        return items.success ? todoTally(items.data) : undefined;
      },
    },
  ],
  [findFilesTool.name, searchLook(({ matches, files, more }) => `${more ? `${files} of ${count(matches, "file")} shown` : count(matches, "file")}, newest first`)],
]);

const PLAIN_LOOK: ToolLook = {};

export function lookOf(name: string): ToolLook {
  return LOOKS.get(name) ?? PLAIN_LOOK;
}

export function callArgs(json: string): CallArgs {
  try {
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    // Arguments that are not JSON (the call will fail): the line shows them as sent.
    return null;
  }
}

/** What the call does, in a few words: "search_replace src/a.ts", or the name and its arguments. */
export function toolCallLabel(name: string, json: string, args: CallArgs = callArgs(json)): string {
  const label = lookOf(name).label?.(args);
  return `${name} ${label ?? truncate(terminalSafe(json.replace(/\s+/g, " ")), MAX_ARG_CHARS)}`;
}

/** What is shown under the call when it ends; `indent` puts a subagent's lines under its own. */
export function toolEndLines(event: ToolEnd, style: Style, indent: string): string[] {
  if (event.isError) return [`${indent}  ${style.red("✗")} ${firstLine(terminalSafe(event.result))}`];
  if (event.edit) return formatEdit(event.edit, { style, indent: `${indent}  `, maxLines: LIVE_DIFF_LINES });
  return [];
}

export const firstLine = (text: string) => truncate(text.split("\n", 1)[0] ?? "", 160);

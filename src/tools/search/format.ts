// How grep and find_files end their results, and the one-line count the terminal shows for them. A
// result's last line is its tally in brackets, "[<count>]" or "[<count>; <notes, how to go on>]", so
// the terminal can show the count without the wall of lines above it.
import { groupDigits } from "../../format.js";

/** Matching lines in one grep page. */
export const GREP_PAGE_LINES = 100;
/** Paths in one grep files_only page, and in a find_files result. */
export const PATHS_PER_PAGE = 100;
/** Bytes of lines or paths in one page: well under the spill limit, so pages are never spilled. */
export const PAGE_BYTES = 16 * 1024;

export function tally(count: string, ...notes: string[]): string {
  return `[${[count, ...notes].join("; ")}]`;
}

/** "1 file", "1,234 files". */
export function count(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${groupDigits(n)} ${n === 1 ? singular : pluralForm}`;
}

const SEARCH_TOOLS = new Set(["grep", "find_files"]);

export function isSearchTool(name: string): boolean {
  return SEARCH_TOOLS.has(name);
}

/** The terminal's line for a grep or find_files call, e.g. `grep "foo" in src — 12 matches in 4 files`. */
export function searchSummary(name: string, argumentsJson: string, outcome: { isError: boolean; result: string }): string {
  let args: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (typeof parsed === "object" && parsed !== null) args = parsed as Record<string, unknown>;
  } catch {
    // arguments that are not JSON (the call failed): the line names the tool alone
  }
  const what = typeof args.pattern === "string" ? ` ${JSON.stringify(args.pattern)}` : typeof args.cursor === "string" ? " (continued)" : "";
  const where = typeof args.path === "string" && args.path !== "." ? ` in ${args.path}` : "";
  const only = typeof args.glob === "string" ? ` (${args.glob})` : "";
  return `${name}${what}${where}${only} — ${outcome.isError ? "failed" : found(outcome.result)}`;
}

/** The tally a result ends with ("12 matches in 4 files"), or its first line when it has none ("No matches…"). */
function found(result: string): string {
  const tallied = /^\[([^;\]]*)(;.*)?\]$/.exec(result.slice(result.lastIndexOf("\n") + 1));
  if (tallied === null) return result.split("\n", 1)[0] ?? "";
  return `${tallied[1]}${tallied[2]?.includes("cursor") ? ", more follow" : ""}`;
}

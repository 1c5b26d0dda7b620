// The unified diff a reviewer reads, from each changed file's content then and now: one file after
// another in path order, git's header lines, three lines of context. Bounded: once the limit is
// reached, the files left are named, for the reviewer to read itself, and not diffed. Bounded in time
// too: finding the fewest edits costs in proportion to their number times the file's length, so past
// MAX_EDIT_LENGTH differences (or DIFF_TIMEOUT_MS) a file's changed region, from its first differing
// line to its last, is shown removed and added whole; between files the event loop gets a turn and
// a cancelled call (Ctrl-C) stops. Loaded only for a review.
import { createTwoFilesPatch, FILE_HEADERS_ONLY, formatPatch } from "diff";

/** A file whose content changed (null: it did not exist), or one that can only be described. */
export type FileChange = { path: string; before: string | null; after: string | null } | { path: string; summary: string };

const CONTEXT_LINES = 3;
const MAX_EDIT_LENGTH = 1000;
const DIFF_TIMEOUT_MS = 500;
const NOT_ALIGNED = "(too many differences to align line by line: the changed region is shown removed and added whole)\n";
const NO_NEWLINE = "\\ No newline at end of file";

export async function unifiedDiff(changes: readonly FileChange[], maxChars: number, signal: AbortSignal): Promise<string> {
  const sorted = [...changes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const parts: string[] = [];
  const left: string[] = [];
  let size = 0;
  for (const change of sorted) {
    await new Promise((resolve) => setImmediate(resolve));
    signal.throwIfAborted();
    const part = left.length === 0 ? filePatch(change) : null;
    if (part !== null && size + part.length <= maxChars) {
      parts.push(part);
      size += part.length;
    } else {
      left.push(change.path);
    }
  }
  if (left.length > 0) {
    parts.push(`(The diff stops here, at its size limit. Also changed, not shown: ${left.join(", ")}. Read them with your tools.)\n`);
  }
  return parts.join("");
}

function filePatch(change: FileChange): string {
  const head = `diff --git a/${change.path} b/${change.path}\n`;
  if ("summary" in change) return `${head}${change.summary}\n`;
  const { before, after } = change;
  const kind = before === null ? "new file\n" : after === null ? "deleted file\n" : "";
  const oldName = before === null ? "/dev/null" : `a/${change.path}`;
  const newName = after === null ? "/dev/null" : `b/${change.path}`;
  const options = { context: CONTEXT_LINES, headerOptions: FILE_HEADERS_ONLY, maxEditLength: MAX_EDIT_LENGTH, timeout: DIFF_TIMEOUT_MS };
  const patch = createTwoFilesPatch(oldName, newName, before ?? "", after ?? "", undefined, undefined, options);
  if (patch !== undefined) return `${head}${kind}${patch}`;
  return `${head}${kind}${NOT_ALIGNED}${wholeRegionPatch(oldName, newName, before ?? "", after ?? "")}`;
}

/** One hunk: the lines between the common start and the common end removed, the new ones added. */
function wholeRegionPatch(oldName: string, newName: string, before: string, after: string): string {
  const a = linesOf(before);
  const b = linesOf(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const from = Math.max(0, start - CONTEXT_LINES);
  const oldEnd = a.length - end;
  const newEnd = b.length - end;
  const trailing = Math.min(end, CONTEXT_LINES);
  const lines = [...marked(a.slice(from, start), " "), ...marked(a.slice(start, oldEnd), "-"), ...marked(b.slice(start, newEnd), "+"), ...marked(a.slice(oldEnd, oldEnd + trailing), " ")];
  const oldLines = oldEnd + trailing - from;
  const newLines = newEnd + trailing - from;
  const hunk = { oldStart: oldLines === 0 ? from : from + 1, oldLines, newStart: newLines === 0 ? from : from + 1, newLines, lines };
  return formatPatch({ oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks: [hunk] }, FILE_HEADERS_ONLY);
}

/** The text's lines, each with its "\n" (the last may have none). */
function linesOf(text: string): string[] {
  return text === "" ? [] : (text.match(/[^\n]*\n|[^\n]+$/g) ?? []);
}

function marked(lines: readonly string[], mark: string): string[] {
  return lines.flatMap((line) => (line.endsWith("\n") ? [`${mark}${line.slice(0, -1)}`] : [`${mark}${line}`, NO_NEWLINE]));
}

/** What changed in the project since its session began, for a review or /diff. */
export interface ProjectChanges {
  files: FileChange[];
  /** What the reviewer should know about how complete the list is. */
  note?: string;
}

// How a file edit is described for people: the tool hands over the text it replaced, the text it put
// in its place and the file's text around it, at the moment of the edit, so the terminal and
// `hel sessions show` show what the call did, not what the file holds later. Only the changed lines
// and a few around them are compared (with jsdiff), so a large file costs no more than its change.
// Loaded on the first edit, not before the first request.
import { structuredPatch } from "diff";
import type { DiffHunk, FileEdit } from "./file-edit.js";

const EDIT_CONTEXT_LINES = 3;
/**
 * Beyond this many changed lines, finding the smallest diff costs more than it tells: the hunk then
 * shows every old line removed and every new line added.
 */
export const MAX_DIFF_EDIT_LENGTH = 200;

/** The edit that put `newText` in place of the `oldText` found at index `at` of `text` (line endings already "\n"). */
export function describeEdit(path: string, text: string, at: number, oldText: string, newText: string, created = false): FileEdit {
  const from = lineStartBefore(text, at, EDIT_CONTEXT_LINES);
  const to = lineEndAfter(text, at + oldText.length, EDIT_CONTEXT_LINES);
  const before = text.slice(from.index, to);
  const after = text.slice(from.index, at) + newText + text.slice(at + oldText.length, to);
  // Numbered within the compared lines, which begin at line `from.line` of the file.
  const hunks = diffHunks(before, after).map((h) => ({ ...h, old_start: h.old_start + from.line - 1, new_start: h.new_start + from.line - 1 }));
  return withCounts(path, created, hunks);
}

/** A whole file's change, from `before` to `after` (null: the file did not exist, or no longer does). */
export function describeChange(path: string, before: string | null, after: string | null): FileEdit {
  return withCounts(path, before === null, diffHunks(before ?? "", after ?? ""));
}

function withCounts(path: string, created: boolean, hunks: DiffHunk[]): FileEdit {
  let added = 0;
  let removed = 0;
  for (const line of hunks.flatMap((h) => h.lines)) {
    if (line.startsWith("+")) added++;
    else if (line.startsWith("-")) removed++;
  }
  return { path, created, added, removed, hunks };
}

function diffHunks(before: string, after: string): DiffHunk[] {
  const patch = structuredPatch("", "", before, after, undefined, undefined, { context: EDIT_CONTEXT_LINES, maxEditLength: MAX_DIFF_EDIT_LENGTH });
  if (patch === undefined) return [wholeReplacement(before, after)];
  return patch.hunks.map((h) => ({
    old_start: h.oldStart,
    old_lines: h.oldLines,
    new_start: h.newStart,
    new_lines: h.newLines,
    // "\ No newline at end of file" says nothing a person reading the change needs.
    lines: h.lines.filter((line) => !line.startsWith("\\")),
  }));
}

function wholeReplacement(before: string, after: string): DiffHunk {
  const oldLines = splitLines(before);
  const newLines = splitLines(after);
  return {
    old_start: 1,
    old_lines: oldLines.length,
    new_start: 1,
    new_lines: newLines.length,
    lines: [...oldLines.map((l) => `-${l}`), ...newLines.map((l) => `+${l}`)],
  };
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The start of the line `context` lines above the one holding `at`, and its 1-based number. */
function lineStartBefore(text: string, at: number, context: number): { index: number; line: number } {
  let index = startOfLine(text, at);
  for (let i = 0; i < context && index > 0; i++) index = startOfLine(text, index - 1);
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return { index, line };
}

function startOfLine(text: string, at: number): number {
  return at <= 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
}

/** The end (after its line break) of the line `context` lines below the one holding `end`. */
function lineEndAfter(text: string, end: number, context: number): number {
  // A change that ends with a line break ends its line: the lines after it are context.
  let index = end > 0 && text[end - 1] === "\n" ? end : endOfLine(text, end);
  for (let i = 0; i < context && index < text.length; i++) index = endOfLine(text, index);
  return index;
}

function endOfLine(text: string, from: number): number {
  const nl = text.indexOf("\n", from);
  return nl === -1 ? text.length : nl + 1;
}

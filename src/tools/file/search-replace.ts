// search_replace: replace the one exact occurrence of old_text in a file with new_text, or create a
// file when old_text is empty. Zero or several occurrences are errors that say what call to make next.
// The model writes "\n"; a CRLF file is matched with its line endings normalised, and the new text gets
// the file's line ending while untouched lines keep theirs byte for byte. BOM, mode, owner and group
// are kept; a read-only file is refused. Reading, checking and writing a file is one step: an edit
// made meanwhile by another agent of this process is never lost, and an old_text it changed is not found.
// A file that changed on disk before the rename (checked under the lock: content, size, mtime, inode) is
// read again and edited anew while old_text is still unique in it. Each edit is logged (../edit-log.ts) so
// that a command of another agent that rewrites the file with what it read before can be undone.
import { constants } from "node:fs";
import path from "node:path";
import type { OpenDir } from "../../fs/beneath.js";
import { z } from "../../zod.js";
import { plural } from "../../format.js";
import { withFileLock } from "./file-lock.js";
import { isMissing, pathScope, projectRelative, withProjectEntry } from "../paths.js";
import { FileChangedError, loadTextFile, saveTextFile, type LoadedText } from "../text-file.js";
import { ToolError, type Tool, type ToolContext } from "../types.js";

const SearchReplaceArgsSchema = z.strictObject({
  // Every request carries the definition: the description says what the fields are.
  path: z.string(),
  old_text: z.string(),
  new_text: z.string(),
});
export type SearchReplaceArgs = z.infer<typeof SearchReplaceArgsSchema>;

export const searchReplaceTool: Tool<SearchReplaceArgs> = {
  name: "search_replace",
  // A call whose old_text is not found, or found twice, is told what to resend.
  description: "Replace old_text, exact and unique in the file, by new_text. Empty old_text: a new file.",
  schema: SearchReplaceArgsSchema,
  spill: true,
  run: searchReplace,
};

async function searchReplace(args: SearchReplaceArgs, ctx: ToolContext): Promise<string> {
  if (ctx.policy.access === "read-only") throw new ToolError("read-only access: edits are refused; report the change needed instead");
  const oldText = toLf(args.old_text);
  const newText = toLf(args.new_text);
  if (oldText === newText) {
    throw new ToolError("old_text and new_text are identical, so the edit would change nothing: put the changed text in new_text");
  }
  const scope = pathScope(ctx);
  const display = projectRelative(scope, args.path);
  // The turn's checkpoint records the file before any edit of the turn, outside the lock: every
  // agent's first edit of the turn waits for the same one.
  await ctx.changes.beforeChange(ctx.signal);
  // An empty old_text may create the file, parent directories included; otherwise a missing directory
  // is a missing file. Another agent's edit of the same file waits until this one has written.
  const edited = withProjectEntry(scope, args.path, "write", oldText === "", ({ dir, name, real }) =>
    withFileLock(real, async () => {
      const loaded = await loadTextFile(dir, name, display);
      ctx.changes.beforeWrite(display, loaded && (loaded.bom ? "\ufeff" : "") + loaded.text);
      if (loaded === null) {
        const created = await createFile(dir, name, display, oldText, newText);
        ctx.caller.editLog.record({ real, display, oldText, newText });
        await recordEdit(ctx, display, "", 0, "", newText, true);
        return created;
      }
      if (oldText === "") {
        if (loaded.text !== "") {
          throw new ToolError(
            `${display} already exists and is not empty; an empty old_text only creates files. To change it, put the exact text to replace in old_text (read_file ${JSON.stringify({ path: display })} shows it)`,
          );
        }
        await saveTextFile(dir, name, display, loaded, newText);
        ctx.caller.editLog.record({ real, display, oldText, newText });
        await recordEdit(ctx, display, "", 0, "", newText);
        return `Wrote ${display} (${plural(countLines(newText), "line")}).`;
      }
      const edit = await applyEdit(dir, name, display, loaded, oldText, newText);
      ctx.caller.editLog.record({ real, display, oldText, newText });
      await recordEdit(ctx, display, edit.before, edit.at, oldText, newText);
      const removed = spanOf(edit.line, oldText);
      return newText === "" ? `Edited ${display}: removed ${removed}.` : `Edited ${display}: replaced ${removed}; the new text is at ${spanOf(edit.line, newText)}.`;
    }),
  );
  return edited.catch((e: unknown) => {
    throw oldText !== "" && isMissing(e) ? missingFile(display) : e;
  });
}

async function createFile(dir: OpenDir, name: string, display: string, oldText: string, newText: string): Promise<string> {
  if (oldText !== "") throw missingFile(display);
  let file;
  try {
    file = await dir.open(name, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    throw new ToolError(`${display} was created by someone else meanwhile; nothing was written. Read it and edit it with a non-empty old_text`);
  }
  try {
    await file.writeFile(newText);
  } finally {
    await file.close();
  }
  return `Created ${display} (${plural(countLines(newText), "line")}).`;
}

function missingFile(display: string): ToolError {
  return new ToolError(
    `${display} does not exist. To create it, call search_replace with old_text "" and the whole content as new_text; to edit an existing file, check its path with read_file ${JSON.stringify({ path: path.posix.dirname(display) })}`,
  );
}

/** Reports what the edit changed; the diff code is loaded with the first edit. */
async function recordEdit(ctx: ToolContext, ...edit: Parameters<typeof import("../../changes/edit-diff.js").describeEdit>): Promise<void> {
  const { describeEdit } = await import("../../changes/edit-diff.js");
  ctx.report.recordEdit(describeEdit(...edit));
}

/** How often a file that keeps changing under an edit is read again before the edit gives up. */
const EDIT_ATTEMPTS = 5;

/**
 * Replaces the one occurrence of `oldText` in the loaded file and saves it. When the file is no longer
 * the one loaded by the time it would be renamed into place (a command, another process or an editor
 * changed it), it is read again and the edit made on what it holds now, as long as `oldText` is still
 * there exactly once; otherwise nothing is written and the error says the file changed. `beforeCheck`
 * is saveTextFile's test seam.
 */
export async function applyEdit(dir: OpenDir, name: string, display: string, loaded: LoadedText, oldText: string, newText: string, beforeCheck?: () => Promise<unknown>): Promise<ReturnType<typeof replaceOnce>> {
  for (let attempt = 1; ; attempt++) {
    const edit = attempt === 1 ? replaceOnce(loaded.text, oldText, newText, display) : replaceInChanged(loaded.text, oldText, newText, display);
    try {
      await saveTextFile(dir, name, display, loaded, edit.text, beforeCheck);
      return edit;
    } catch (e) {
      if (!(e instanceof FileChangedError) || attempt === EDIT_ATTEMPTS) throw e;
    }
    const now = await loadTextFile(dir, name, display);
    if (now === null) throw new ToolError(`${display} was deleted while it was being edited; nothing was written. Check with read_file ${JSON.stringify({ path: display })} and make the edit again`);
    loaded = now;
  }
}

function replaceInChanged(raw: string, oldText: string, newText: string, display: string): ReturnType<typeof replaceOnce> {
  const found = occurrences(toLf(raw), oldText).length;
  if (found === 1) return replaceOnce(raw, oldText, newText, display);
  throw new ToolError(
    `${display} changed while it was being edited (by a command, another agent or an editor), and old_text ${found === 0 ? "is no longer in it" : `now occurs ${found} times in it`}; nothing was written. Read it again with read_file and make the edit on its current content`,
  );
}

/**
 * `raw` with the one occurrence of `oldText` replaced, the 1-based line where it started, and where it
 * was (`at`) in `before`, the file's text with "\n" line endings.
 */
function replaceOnce(raw: string, oldText: string, newText: string, display: string): { text: string; line: number; before: string; at: number } {
  const text = toLf(raw);
  const at = occurrences(text, oldText);
  const first = at[0];
  if (first === undefined) throw new ToolError(noMatchMessage(text, oldText, display));
  if (at.length > 1) {
    const lines = at.slice(0, 10).map((i) => lineAt(text, i));
    const more = at.length > lines.length ? ", …" : "";
    throw new ToolError(
      `old_text occurs ${at.length} times in ${display} (at lines ${lines.join(", ")}${more}); it must occur exactly once. Add surrounding lines to old_text so that it matches only the place to change`,
    );
  }
  const firstBreak = raw.indexOf("\n");
  const crlf = firstBreak > 0 && raw[firstBreak - 1] === "\r";
  const inserted = crlf ? newText.replaceAll("\n", "\r\n") : newText;
  const start = rawIndex(raw, first);
  const end = rawIndex(raw, first + oldText.length);
  return { text: raw.slice(0, start) + inserted + raw.slice(end), line: lineAt(text, first), before: text, at: first };
}

function noMatchMessage(text: string, oldText: string, display: string): string {
  const reread = `Read ${display} again with read_file and copy the text exactly`;
  const lines = oldText.split("\n").filter((l) => l.trim() !== "");
  if (lines.length > 0 && lines.every((l) => /^\s*\d+\t/.test(l))) {
    return `old_text was not found in ${display}: it seems to include read_file's line-number prefixes ("   12\\t"), which are not part of the file. Send the text without them`;
  }
  if (squashSpace(text).includes(squashSpace(oldText))) {
    return `old_text was not found in ${display} exactly, but it matches when whitespace is ignored: indentation, tabs or trailing spaces differ. ${reread}, whitespace included`;
  }
  return `old_text was not found in ${display}. ${reread}; the file may have changed since you read it`;
}

/** Start indexes of every occurrence, overlapping ones included: "aa" in "aaa" is ambiguous. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) found.push(i);
  return found;
}

/** Index in `raw` of index `lfIndex` of toLf(raw): every "\r\n" before it counts one more. */
function rawIndex(raw: string, lfIndex: number): number {
  let crlfs = 0;
  for (let r = raw.indexOf("\r\n"); r !== -1 && r - crlfs < lfIndex; r = raw.indexOf("\r\n", r + 2)) crlfs++;
  return lfIndex + crlfs;
}

function toLf(s: string): string {
  return s.replaceAll("\r\n", "\n");
}

function squashSpace(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function countLines(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** "line 12" or "lines 12-14": the lines `text` occupies when it starts on line `first`. */
function spanOf(first: number, text: string): string {
  const last = first + Math.max(countLines(text) - 1, 0);
  return last === first ? `line ${first}` : `lines ${first}-${last}`;
}

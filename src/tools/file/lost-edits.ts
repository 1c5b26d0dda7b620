// What a command may undo: a formatter or `sed -i` that read a file before another agent edited it and
// wrote it back after has erased that edit without any error. So once a command ends, each edit another
// agent made while it ran is looked at again: an edit whose new text is gone is applied again when its
// old text is still there exactly once; otherwise the agent that made it (or its parent, when it has
// finished) is told which edit was lost. The command's own result says what was done either way.
import { projectRelative, withProjectEntry } from "../paths.js";
import { loadTextFile } from "../text-file.js";
import { ToolError, type ToolContext } from "../types.js";
import type { EditLog, LoggedEdit } from "./edit-log.js";
import { withFileLock } from "./file-lock.js";
import { applyEdit } from "./search-replace.js";

/** Runs a command (`run` resolves to its result), then keeps the edits other agents made meanwhile. */
export async function keepingOthersEdits(ctx: ToolContext, run: () => Promise<string>): Promise<string> {
  const log = ctx.editLog;
  if (!log) return run();
  const window = log.commandStarted();
  try {
    const result = await run();
    const all = window.edits();
    const lines: string[] = [];
    for (const [i, edit] of all.entries()) {
      if (edit.agent === log.agent || supersededBy(edit, all.slice(i + 1))) continue;
      const line = await keepEdit(ctx, log, edit);
      if (line) lines.push(line);
    }
    return lines.length > 0 ? `${result}\n${lines.join("\n")}` : result;
  } finally {
    window.close();
  }
}

/** A later edit of the same file that changed this one's new text: its new text is gone for that reason. */
function supersededBy(edit: LoggedEdit, later: readonly LoggedEdit[]): boolean {
  return later.some((l) => l.real === edit.real && l.oldText !== "" && (l.oldText.includes(edit.newText) || edit.newText.includes(l.oldText)));
}

/** Looks at one edit in the file as the command left it; the line for the command's result, if any. */
async function keepEdit(ctx: ToolContext, log: EditLog, edit: LoggedEdit): Promise<string | null> {
  const { display, oldText, newText } = edit;
  const what = `${edit.agent}'s edit of ${display} (new_text ${excerpt(newText)})`;
  const lost = (why: string): string => {
    log.tell(
      edit.agent,
      (whose) => `[hel: ${whose} edit of ${display} (new_text ${excerpt(newText)}) was undone by a command ${log.agent} ran at the same time, and could not be applied again: ${why}. Read ${display} and make the edit again if it is still needed]`,
    );
    return `This command undid ${what}, made while it ran; it could not be applied again (${why}), and ${edit.agent} was told.`;
  };
  try {
    return await withProjectEntry(ctx, display, "write", false, ({ dir, name, real }) =>
      withFileLock(real, async () => {
        const loaded = await loadTextFile(dir, name, display);
        if (loaded === null) return lost("the file no longer exists");
        const text = loaded.text.replaceAll("\r\n", "\n");
        if (newText !== "" ? text.includes(newText) : !text.includes(oldText)) return null;
        if (oldText === "") return lost("the file it created was rewritten");
        try {
          await applyEdit(dir, name, display, loaded, oldText, newText);
        } catch (e) {
          if (!(e instanceof ToolError)) throw e;
          return lost(text.includes(oldText) ? "its old_text is no longer unique" : "its old_text is no longer there");
        }
        return `This command had undone ${what}, made while it ran, by writing back what it read before; hel applied that edit again on top of what the command wrote to ${projectRelative(ctx, real)}.`;
      }),
    );
  } catch (e) {
    return lost(e instanceof Error ? e.message : String(e));
  }
}

/** The new text's first line, short enough for a notice. */
function excerpt(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? text;
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 59)}…` : line);
}

// How an edit another agent made while a command ran is looked at once the command has ended (see
// ../edit-log.ts): an edit whose new text is gone is applied again when its old text is still there
// exactly once; otherwise the agent that made it (or its parent, when it has finished) is told which
// edit was lost. The command's own result says what was done either way.
import type { EditLog, KeepEdit, LoggedEdit } from "../edit-log.js";
import { projectRelative, withProjectEntry, type PathScope } from "../paths.js";
import { loadTextFile } from "../text-file.js";
import { ToolError } from "../types.js";
import { withFileLock } from "./file-lock.js";
import { applyEdit } from "./search-replace.js";

/** The KeepEdit of a run in `scope` (its project). */
export function keepLostEdits(scope: PathScope): KeepEdit {
  return (edit, by) => keepEdit(scope, by, edit);
}

async function keepEdit(scope: PathScope, log: EditLog, edit: LoggedEdit): Promise<string | null> {
  const { display, oldText, newText } = edit;
  const what = `${edit.agent}'s edit of ${display} (new_text ${excerpt(newText)})`;
  const lost = (why: string): string => {
    log.tell(
      edit.agent,
      (whose) =>
        `[hel: ${whose} edit of ${display} (new_text ${excerpt(newText)}) was undone by a command ${log.agent} ran at the same time, and could not be applied again: ${why}. Read ${display} and make the edit again if it is still needed]`,
    );
    return `This command undid ${what}, made while it ran; it could not be applied again (${why}), and ${edit.agent} was told.`;
  };
  try {
    return await withProjectEntry(scope, display, "write", false, ({ dir, name, real }) =>
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
        return `This command had undone ${what}, made while it ran, by writing back what it read before; hel applied that edit again on top of what the command wrote to ${projectRelative(scope, real)}.`;
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

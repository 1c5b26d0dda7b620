// What /diff prints: every file the session changed, as the terminal shows an edit (numbered,
// coloured hunks), from its content before hel first touched it to its content now.
import type { ProjectChanges } from "../../../changes/unified-diff.js";
import { describeChange } from "../../../changes/edit-diff.js";
import { changeCounts, formatEdit } from "./diff-view.js";
import { terminalSafe, type Style } from "./style.js";

/** Diff lines shown per file; the rest is counted. */
const MAX_LINES_PER_FILE = 200;

export function formatChanges(changes: ProjectChanges, style: Style): string[] {
  if (changes.files.length === 0) return ["no file has changed since this session began"];
  const out: string[] = [];
  const files = [...changes.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const change of files) {
    if ("summary" in change) {
      out.push(`${terminalSafe(change.path)}  ${change.summary}`);
      continue;
    }
    const edit = describeChange(change.path, change.before, change.after);
    const kind = change.before === null ? style.dim(" (new)") : change.after === null ? style.dim(" (deleted)") : "";
    out.push(`${terminalSafe(change.path)}  ${changeCounts(edit.added, edit.removed, style)}${kind}`);
    out.push(...formatEdit(edit, { style, indent: "  ", maxLines: MAX_LINES_PER_FILE }));
  }
  if (changes.note) out.push(style.dim(changes.note));
  return out;
}

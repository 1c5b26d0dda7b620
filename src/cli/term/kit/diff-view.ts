// A file edit as people read it: the hunks of a unified diff, each line with its number in the file
// (the old number for removed and unchanged lines, the new one for added lines), removed lines in
// red, added in green. One view for the live terminal and `hel sessions show`.
import type { FileEdit } from "../../../changes/file-edit.js";
import { terminalSafe, type Style } from "./style.js";

export interface DiffViewOptions {
  style: Style;
  /** Put before every line. */
  indent?: string;
  /** Diff lines to show at most; the rest is counted in one closing line. */
  maxLines?: number;
}

/** "+2 -1", green and red. */
export function changeCounts(added: number, removed: number, style: Style): string {
  return [style.green(`+${added}`), style.red(`-${removed}`)].join(" ");
}

export function formatEdit(edit: FileEdit, options: DiffViewOptions): string[] {
  const { style } = options;
  const indent = options.indent ?? "";
  const width = String(Math.max(1, ...edit.hunks.map((h) => Math.max(h.old_start + h.old_lines, h.new_start + h.new_lines)))).length;
  const out: string[] = [];
  let shown = 0;
  let total = 0;
  edit.hunks.forEach((hunk, i) => {
    if (i > 0 && shown < (options.maxLines ?? Infinity)) out.push(`${indent}${" ".repeat(width)} ${style.dim("⋮")}`);
    let oldLine = hunk.old_start;
    let newLine = hunk.new_start;
    for (const line of hunk.lines) {
      total++;
      const mark = line[0];
      const text = terminalSafe(line.slice(1));
      const number = mark === "+" ? newLine++ : oldLine++;
      if (mark === " ") newLine++;
      if (shown >= (options.maxLines ?? Infinity)) continue;
      shown++;
      const num = style.dim(String(number).padStart(width));
      // An empty line ends at its mark: nothing trails it.
      const body = `${mark === " " ? " " : mark}${text === "" ? "" : ` ${text}`}`;
      if (mark === "+") out.push(`${indent}${num} ${style.green(body)}`);
      else if (mark === "-") out.push(`${indent}${num} ${style.red(body)}`);
      else out.push(`${indent}${num}${text === "" ? "" : ` ${body}`}`);
    }
  });
  if (total > shown) out.push(`${indent}${style.dim(`… ${total - shown} more diff lines`)}`);
  return out;
}

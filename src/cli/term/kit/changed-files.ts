// The files a run changed, for the lines it ends with: each file once, in the order first changed,
// with the lines added and removed by all of its edits (children's included).
import type { FileEdit } from "../../../changes/file-edit.js";
import { changeCounts } from "./diff-view.js";
import { terminalSafe, type Style } from "./style.js";

interface FileChange {
  added: number;
  removed: number;
  created: boolean;
}

export class ChangedFiles {
  private readonly files = new Map<string, FileChange>();

  add(edit: FileEdit): void {
    const seen = this.files.get(edit.path) ?? { added: 0, removed: 0, created: false };
    this.files.set(edit.path, { added: seen.added + edit.added, removed: seen.removed + edit.removed, created: seen.created || edit.created });
  }

  /** "changed 2 files:" and a line per file; nothing when no file changed. */
  lines(style: Style): string[] {
    if (this.files.size === 0) return [];
    const width = Math.max(...[...this.files.keys()].map((p) => p.length));
    const rows = [...this.files].map(([path, c]) => `  ${terminalSafe(path).padEnd(width)}  ${changeCounts(c.added, c.removed, style)}${c.created ? style.dim(" (new)") : ""}`);
    return [`changed ${this.files.size} ${this.files.size === 1 ? "file" : "files"}:`, ...rows];
  }
}

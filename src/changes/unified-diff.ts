// The unified diff a reviewer reads, from each changed file's content then and now: one file after
// another in path order, git's header lines, three lines of context. Bounded: once the limit is
// reached, the files left are named, for the reviewer to read itself. Pure; loaded only for a review.
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";

/** A file whose content changed (null: it did not exist), or one that can only be described. */
export type FileChange = { path: string; before: string | null; after: string | null } | { path: string; summary: string };

export function unifiedDiff(changes: readonly FileChange[], maxChars: number): string {
  const sorted = [...changes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const parts: string[] = [];
  const left: string[] = [];
  let size = 0;
  for (const change of sorted) {
    const part = filePatch(change);
    if (left.length === 0 && size + part.length <= maxChars) {
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
  const patch = createTwoFilesPatch(
    before === null ? "/dev/null" : `a/${change.path}`,
    after === null ? "/dev/null" : `b/${change.path}`,
    before ?? "",
    after ?? "",
    undefined,
    undefined,
    { context: 3, headerOptions: FILE_HEADERS_ONLY },
  );
  return `${head}${kind}${patch}`;
}

/** What changed in the project since its session began, for a review or /diff. */
export interface ProjectChanges {
  files: FileChange[];
  /** What the reviewer should know about how complete the list is. */
  note?: string;
}

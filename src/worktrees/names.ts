// The names a worktree and its branch may have. A name comes from the model or the command line, so it
// is checked strictly: one path segment of letters, digits, dots, dashes and underscores, no "..", no
// ".lock" ending; a branch is `hel/` and one to three such segments. Nothing else can reach a folder
// outside `.hel/worktrees/` or a ref outside `refs/heads/hel/`.
import { WorktreeError } from "./types.js";

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function segmentOk(segment: string): boolean {
  return SEGMENT.test(segment) && !segment.includes("..") && !segment.endsWith(".lock") && !segment.endsWith(".");
}

/** Throws unless `name` is a worktree name hel accepts. */
export function checkName(name: string): void {
  if (!segmentOk(name)) throw new WorktreeError(`"${name}" is not a worktree name: use letters, digits, ".", "-" and "_" (at most 64, no "..")`, "name");
}

/** Throws unless `branch` is `hel/` and one to three name segments. */
export function checkBranch(branch: string): void {
  const parts = branch.split("/");
  if (parts[0] !== "hel" || parts.length < 2 || parts.length > 4 || !parts.slice(1).every(segmentOk)) {
    throw new WorktreeError(`"${branch}" is not a branch hel makes: it must be hel/<name> with names of letters, digits, ".", "-" and "_"`, "name");
  }
}

// What the worktree engine hands across its boundary and keeps on disk: the worktree made, the files a
// worktree changed, the outcome of merging one into the project, and the listing of the kept ones. The
// record and the journal live in hel's state folder; they are parsed with these schemas on every read.
import { z } from "zod";

/** Why a worktree could not be made, used, merged or removed; one line, saying what to do. */
export class WorktreeError extends Error {
  override name = "WorktreeError";
  constructor(
    message: string,
    readonly code: "no-git" | "not-a-repository" | "subfolder" | "name" | "exists" | "not-hel's" | "missing" | "unmerged" | "git",
  ) {
    super(message);
  }
}

export const Worktree = z.object({
  name: z.string(),
  /** The worktree's folder: `<project>/.hel/worktrees/<name>`. */
  dir: z.string(),
  branch: z.string(),
  /** The commit it started from: the project's working tree when it was made, on top of HEAD. */
  base: z.string(),
});
export type Worktree = z.infer<typeof Worktree>;

export const FileChange = z.object({
  path: z.string(),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  /** Lines are not counted in a binary file. */
  binary: z.boolean().optional(),
});
export type FileChange = z.infer<typeof FileChange>;

export const ConflictKind = z.enum(["text", "binary", "mode", "deleted"]);
export type ConflictKind = z.infer<typeof ConflictKind>;

export const Conflict = z.object({
  path: z.string(),
  kind: ConflictKind,
  /** The conflicting hunks of each side, at most a few, each cut to a bounded length. */
  ours: z.array(z.string()),
  theirs: z.array(z.string()),
  /** Hunks or lines were left out past the bounds. */
  truncated: z.boolean(),
});
export type Conflict = z.infer<typeof Conflict>;

export const MergeOutcome = z.object({
  status: z.enum(["applied", "no changes", "conflict"]),
  /** What the worktree changed since it was made (for "applied": what now is in the project). */
  files: z.array(FileChange),
  conflicts: z.array(Conflict),
});
export type MergeOutcome = z.infer<typeof MergeOutcome>;

/** hel's record of a worktree it made, in its state folder, where neither a clone nor a command writes. */
export const WorktreeRecord = Worktree.extend({
  version: z.literal(1),
  /** git's folder for the worktree inside the project's git directory (`worktrees/<x>`). */
  admin: z.string(),
  session: z.string().optional(),
  madeAt: z.string(),
  /** Its changes are in the project (with conflict markers, when `conflicts` is set). */
  merged: z.boolean().default(false),
  /** The files of its last merge that conflicted. */
  conflicts: z.array(z.string()).default([]),
});
export type WorktreeRecord = z.infer<typeof WorktreeRecord>;

export const WorktreeListing = z.object({
  name: z.string(),
  session: z.string().optional(),
  branch: z.string(),
  dir: z.string(),
  files: z.array(FileChange),
  /** Why it is still there. */
  kept: z.string(),
});
export type WorktreeListing = z.infer<typeof WorktreeListing>;

// The worktrees a conversation's isolated children work in (agent/children/isolation.ts), made by the
// worktrees room for this project: offered only where the project's folder is the top of a git work
// tree (one stat, so a project without git offers no `isolation` argument and its first request is
// what it was); git missing, or a repository the engine refuses, is said when a call asks for one.
import { lstatSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createWorkspaces, WorkspaceUnavailable, type Workspaces } from "../agent/children/isolation.js";
import { WorktreeError } from "../worktrees/types.js";
import { commitWorktree, lockWorktree, makeWorktree, removeWorktree } from "../worktrees/worktrees.js";
import { mergeWorktree } from "../worktrees/merge.js";

export function childWorkspaces(projectDir: string): Workspaces | undefined {
  if (lstatSync(join(projectDir, ".git"), { throwIfNoEntry: false }) === undefined) return undefined;
  return createWorkspaces({
    async make(name, branch, session) {
      try {
        return await makeWorktree({ projectDir, name, branch, session });
      } catch (error) {
        throw error instanceof WorktreeError ? new WorkspaceUnavailable(error.message) : error;
      }
    },
    lock: (wt, locked) => lockWorktree(projectDir, wt.name, locked),
    commit: (wt) => commitWorktree(projectDir, wt),
    merge: (wt, committed) => mergeWorktree(projectDir, wt, { committed }),
    remove: (wt) => removeWorktree(projectDir, wt.name),
    readProjectFile: (path) => readFile(join(projectDir, path), "utf8").catch(() => null),
  });
}

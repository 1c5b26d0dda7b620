// Where a session works: the project itself, or with `hel -w [name]` its own git worktree of the project,
// `.hel/worktrees/<name>/` on branch `hel/<name>` (made from the project as it is when missing, used again
// when hel made it before), so that two terminals can work on one project at once. The session's records
// stay in the project's own `.hel/sessions`; `--resume` and `-c` of a session that worked in a worktree
// go back into it (its saved working folder says which). The worktree stays locked as a session's, so a
// merge never removes it from under the session; `hel worktrees rm <name>` does once it is merged.
import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { HelError } from "../errors.js";
import type { RunOptions } from "../settings/run-options.js";
import { latestSessionId, resolveSessionId } from "../session/catalog.js";
import { loadSnapshotFile } from "../session/snapshot-file.js";
import { WorktreeError } from "../worktrees/types.js";
import { hasWorktrees, lockWorktree, makeWorktree, openWorktree, SESSION_LOCK } from "../worktrees/worktrees.js";

export interface SessionPlace {
  /** The folder the session's files are in. */
  dir: string;
  here: string;
  /** The project whose `.hel/sessions` keeps the session, when not `dir`. */
  sessionsDir?: string;
  /** The worktree's name, for the note that says where the session works. */
  worktree?: string;
}

export async function sessionPlace(root: string, here: string, flags: Pick<RunOptions, "worktree" | "resume" | "continue">, env: NodeJS.ProcessEnv): Promise<SessionPlace> {
  const asked = flags.worktree ?? (await resumedWorktree(root, flags, env));
  if (asked === null) return { dir: root, here };
  const name = asked === "" ? `w-${Date.now().toString(36)}` : asked;
  try {
    const wt = (await openWorktree(root, name, env)) ?? (await makeWorktree({ projectDir: root, name, branch: `hel/${name}`, env }));
    await lockWorktree(root, name, true, env, SESSION_LOCK);
    const below = join(wt.dir, relative(root, here));
    return { dir: wt.dir, here: existsSync(below) ? below : wt.dir, sessionsDir: root, worktree: name };
  } catch (e) {
    throw e instanceof WorktreeError ? new HelError(`-w: ${e.message}`, e.code === "name" ? 2 : 1) : e;
  }
}

/** The worktree the resumed (or continued) session worked in; null: none, or no session to resume. */
async function resumedWorktree(root: string, flags: Pick<RunOptions, "resume" | "continue">, env: NodeJS.ProcessEnv): Promise<string | null> {
  if ((flags.resume === null && !flags.continue) || !(await hasWorktrees(root, env))) return null;
  // A session that cannot be found or read is the session's start to report.
  const id = await (flags.resume !== null ? resolveSessionId(root, flags.resume) : latestSessionId(root)).catch(() => null);
  if (!id) return null;
  const saved = await loadSnapshotFile(root, id, { unsigned: true }).catch(() => null);
  const inside = join(root, ".hel", "worktrees") + sep;
  const name = saved?.snapshot.cwd.startsWith(inside) ? saved.snapshot.cwd.slice(inside.length).split(sep)[0] : undefined;
  // Only a worktree hel made and still keeps: a session whose worktree is gone goes on in the project.
  return name && (await openWorktree(root, name, env).catch(() => null)) ? name : null;
}

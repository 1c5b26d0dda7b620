// An isolated child's own workspace (delegate_task with `isolation: "worktree"`): a git worktree of the
// project, made when the call starts, locked while the child runs, and, when the child ends, its work
// committed and merged into the parent's tree, one child at a time in the order they end. The engine
// that makes, merges and removes worktrees is given (the worktrees room); this module decides the order:
// the turn's checkpoint and the review's baseline are told before a merge changes the parent's files,
// so /rewind undoes a merged child; a clean merge or no change removes the worktree and its branch, a
// conflict or an unfinished child keeps them for `hel worktrees merge|rm`. The result the parent's model
// reads is worded here, from the same details the event stream carries.
import type { ChangeWatch, MergeConflict, MergeDetails, MergedFile } from "../../tools/types.js";

export const ISOLATIONS = ["none", "worktree"] as const;
export type Isolation = (typeof ISOLATIONS)[number];

/** A worktree as the engine names it. */
export interface Worktree {
  name: string;
  dir: string;
  branch: string;
}

/** What the worktrees room does for a child; each call runs git through the git guard. */
export interface WorktreeEngine {
  /** Throws WorkspaceUnavailable when the project has no git or is no repository. */
  make(name: string, branch: string): Promise<Worktree>;
  lock(wt: Worktree, reason: string): Promise<void>;
  unlock(wt: Worktree): Promise<void>;
  /** Commits the worktree's changes on its branch: the files changed since it was made. */
  commit(wt: Worktree): Promise<MergedFile[]>;
  /** A 3-way merge into the project's tree, all or nothing. */
  merge(wt: Worktree): Promise<{ status: "applied" | "no changes" | "conflict"; files: MergedFile[]; conflicts: MergeConflict[] }>;
  remove(wt: Worktree): Promise<void>;
  /** A file's content in the project's tree (null: none), for the baseline a merge is preceded by. */
  readProjectFile(path: string): Promise<string | null>;
}

/** The project cannot have a worktree: no git, or not a repository; the message says which, for the model. */
export class WorkspaceUnavailable extends Error {
  override name = "WorkspaceUnavailable";
}

/** A child's workspace while it runs. */
export interface Workspace {
  readonly worktree: Worktree;
  /** Commits the child's work and merges it into the parent's tree (after `changes` are told); then removes or keeps. */
  merge(changes: ChangeWatch, signal: AbortSignal): Promise<MergeDetails>;
  /** Commits the child's work and keeps it unmerged (it did not finish); removed when it changed nothing. */
  keep(): Promise<MergeDetails>;
}

export interface Workspaces {
  /** Makes and locks the worktree of child `number` of the session `sessionId`. */
  open(sessionId: string, number: number): Promise<Workspace>;
}

export function createWorkspaces(engine: WorktreeEngine): Workspaces {
  // Merges, and the removals after them, go one at a time, in the order the children end.
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const done = queue.then(work);
    queue = done.catch(() => undefined);
    return done;
  };
  return {
    async open(sessionId, number) {
      const short = sessionId.slice(0, 8);
      const worktree = await engine.make(`${short}-${number}`, `hel/${short}/${number}`);
      await engine.lock(worktree, `subagent ${number} of session ${short} is running`);
      const details = (status: MergeDetails["status"], files: MergedFile[], conflicts: MergeConflict[], kept: boolean): MergeDetails => ({
        kind: "merge",
        worktree: worktree.name,
        branch: worktree.branch,
        status,
        files,
        conflicts,
        kept,
      });
      const finish = (merge: ((files: MergedFile[]) => Promise<MergeDetails>) | null) =>
        inTurn(async () => {
          await engine.unlock(worktree);
          const files = await engine.commit(worktree);
          if (files.length === 0) {
            await engine.remove(worktree);
            return details("no changes", [], [], false);
          }
          if (!merge) return details("not merged", files, [], true);
          return merge(files);
        });
      return {
        worktree,
        merge: (changes, signal) =>
          finish(async (files) => {
            await changes.beforeChange(signal);
            for (const file of files) changes.beforeWrite(file.path, await engine.readProjectFile(file.path));
            const outcome = await engine.merge(worktree);
            const kept = outcome.status === "conflict";
            if (!kept) await engine.remove(worktree);
            return details(outcome.status, outcome.files.length > 0 ? outcome.files : files, outcome.conflicts, kept);
          }),
        keep: () => finish(null),
      };
    },
  };
}

/** The lines after an isolated child's answer in its delegate_task result: its files, the merge, what to do next. */
export function mergeReport(d: MergeDetails): string {
  const files = d.files.map((f) => `  ${f.path} +${f.added} -${f.removed}`);
  const lines = [d.files.length > 0 ? `Files changed in its worktree ${d.worktree}:` : `It changed no file in its worktree ${d.worktree}.`, ...files];
  switch (d.status) {
    case "applied":
      lines.push("Merge: applied — these changes are now in the project's files; its worktree and branch are removed.");
      break;
    case "no changes":
      lines.push("Merge: no changes — there was nothing to merge; its worktree and branch are removed.");
      break;
    case "not merged":
      lines.push(
        `Merge: not merged — it did not finish, so its work is kept unmerged on branch ${d.branch}.`,
        `The user can merge it with \`hel worktrees merge ${d.worktree}\` or discard it with \`hel worktrees rm ${d.worktree}\`.`,
      );
      break;
    case "conflict":
      lines.push(`Merge: conflict — nothing of this subagent's work was applied; its worktree and branch ${d.branch} are kept.`);
      for (const c of d.conflicts) lines.push(`Conflict in ${c.path} (${c.kind}):`, "<<<<<<< project (ours)", ...hunk(c.ours), "=======", ...hunk(c.theirs), ">>>>>>> subagent (theirs)");
      lines.push(
        `To finish: redo the conflicting change yourself in the project's files, then tell the user to discard the worktree (\`hel worktrees rm ${d.worktree}\`); or the user runs \`hel worktrees merge ${d.worktree}\` to get git-style conflict markers to resolve.`,
      );
      break;
  }
  return lines.join("\n");
}

const hunk = (text: string): string[] => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));

// An isolated child's own workspace (delegate_task with `isolation: "worktree"`): a git worktree of the
// project, made when the call starts, locked while the child runs, and, when the child ends, its work
// committed and merged into the parent's tree, one child at a time in the order they end. The engine
// that makes, merges and removes worktrees is given (the worktrees room: a clean merge or no change
// removes the worktree and its branch, a conflict keeps them); this module decides the order: the turn's
// checkpoint and the review's baseline are told before a merge changes the parent's files, so /rewind
// undoes a merged child, and a child that did not finish keeps its work for `hel worktrees merge|rm`. The result the parent's model
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

/** What the worktrees room does for a child (each call runs git through the git guard), for one project. */
export interface WorktreeEngine {
  /** Throws WorkspaceUnavailable when the project has no git, is no repository, or a worktree cannot be made. */
  make(name: string, branch: string, session: string): Promise<Worktree>;
  lock(wt: Worktree, locked: boolean): Promise<void>;
  /** Commits the worktree's changes on its branch: the commit, and the files changed since it was made. */
  commit(wt: Worktree): Promise<Commit>;
  /**
   * A 3-way merge into the project's tree, all or nothing; removes the worktree and branch unless it
   * conflicts. `committed`: the worktree's commit just made, nothing having worked in it since.
   */
  merge(wt: Worktree, committed: Commit): Promise<{ status: "applied" | "no changes" | "conflict"; files: MergedFile[]; conflicts: MergeConflict[] }>;
  remove(wt: Worktree): Promise<void>;
  /** A file's content in the project's tree (null: none), for the baseline a merge is preceded by. */
  readProjectFile(path: string): Promise<string | null>;
}

/** A worktree's work committed on its branch. */
export interface Commit {
  commit: string;
  files: MergedFile[];
}

/** A child cannot have a worktree: no git, no repository, or it could not be made; the message says why. */
export class WorkspaceUnavailable extends Error {
  override name = "WorkspaceUnavailable";
}

/** A child's workspace while it runs. */
export interface Workspace {
  readonly worktree: Worktree;
  /** Commits the child's work and merges it into the parent's tree, after `changes` are told. */
  merge(changes: ChangeWatch, signal: AbortSignal): Promise<MergeDetails>;
  /** Commits the child's work and keeps it unmerged (it did not finish); removed when it changed nothing. */
  keep(): Promise<MergeDetails>;
}

export interface Workspaces {
  /** Makes and locks the worktree of child `number` of the session `sessionId`. */
  open(sessionId: string, number: number): Promise<Workspace>;
}

export function createWorkspaces(engine: WorktreeEngine): Workspaces {
  // Merges go one at a time, in the order the children end, each with its checkpoint before it.
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const done = queue.then(work);
    queue = done.catch(() => undefined);
    return done;
  };
  return {
    async open(sessionId, number) {
      const short = sessionId.slice(0, 8);
      const worktree = await engine.make(`${short}-${number}`, `hel/${short}/${number}`, sessionId);
      await engine.lock(worktree, true);
      const details = (outcome: Pick<MergeDetails, "status" | "files" | "conflicts" | "kept">): MergeDetails => ({ kind: "merge", worktree: worktree.name, branch: worktree.branch, ...outcome });
      // Unlocked first: the child no longer works in it, and the engine removes only a worktree not in use.
      const committed = async () => {
        await engine.lock(worktree, false);
        return engine.commit(worktree);
      };
      return {
        worktree,
        // The commit touches only the child's worktree and branch: it need not wait for other merges.
        merge: async (changes, signal) => {
          const commit = await committed();
          const { files } = commit;
          return inTurn(async () => {
            if (files.length > 0) {
              await changes.beforeChange(signal);
              for (const file of files) changes.beforeWrite(file.path, await engine.readProjectFile(file.path));
            }
            const outcome = await engine.merge(worktree, commit);
            return details({ ...outcome, files: outcome.files.length > 0 ? outcome.files : files, kept: outcome.status === "conflict" });
          });
        },
        keep: async () => {
          const { files } = await committed();
          if (files.length === 0) await engine.remove(worktree);
          return details({ status: files.length === 0 ? "no changes" : "not merged", files, conflicts: [], kept: files.length > 0 });
        },
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
      for (const c of d.conflicts) lines.push(...conflictLines(c));
      lines.push(
        `To finish: redo the conflicting change yourself in the project's files, then tell the user to discard the worktree (\`hel worktrees rm ${d.worktree}\`); or the user runs \`hel worktrees merge ${d.worktree}\` to get git-style conflict markers to resolve.`,
      );
      break;
  }
  return lines.join("\n");
}

/** A conflict as git would mark it in the file: each hunk of the project's side against the child's. */
function conflictLines(c: MergeConflict): string[] {
  const lines = [`Conflict in ${c.path} (${c.kind === "text" ? "the same lines changed on both sides" : `${c.kind}: git cannot merge it`}):`];
  const hunks = Math.max(c.ours.length, c.theirs.length);
  for (let i = 0; i < hunks; i++) lines.push("<<<<<<< project", ...body(c.ours[i]), "=======", ...body(c.theirs[i]), ">>>>>>> subagent");
  if (c.truncated) lines.push("(more of it was left out)");
  return lines;
}

const body = (hunk: string | undefined): string[] => (hunk ? hunk.replace(/\n$/, "").split("\n") : []);

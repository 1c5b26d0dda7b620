// `hel worktrees ls | merge | rm`: the worktrees hel keeps for a project (isolated children whose merge
// conflicted, `hel -w` sessions). `merge` brings one's changes in as a child's merge does, but writes a
// conflict into the files with git-style markers for the user to resolve instead of refusing it.
import { realpath } from "node:fs/promises";
import { HelError } from "../errors.js";
import { count } from "../format.js";
import { findProjectRoot } from "../conversation/project-root.js";
import { recoverMerges } from "../worktrees/journal.js";
import { mergeWorktree } from "../worktrees/merge.js";
import { type FileChange, type MergeOutcome, WorktreeError, type WorktreeListing } from "../worktrees/types.js";
import { listWorktrees, removeSessionWorktrees, removeWorktree, unmergedOfSessions } from "../worktrees/worktrees.js";
import type { Invocation } from "./options.js";
import { terminalSafe } from "./term/kit/style.js";

type WorktreesInvocation = Extract<Invocation, { kind: "worktrees" }>;

export async function runWorktreesCommand(invocation: WorktreesInvocation): Promise<number> {
  const start = await realpath(invocation.cwd).catch(() => {
    throw new HelError(`the project directory ${invocation.cwd} does not exist — check -C`, 2);
  });
  const { root: projectDir } = await findProjectRoot(start);
  const out = (text: string) => process.stdout.write(`${terminalSafe(text)}\n`);
  try {
    const recovered = await recoverMerges(projectDir);
    if (recovered) process.stderr.write(`hel: ${recovered}\n`);
    switch (invocation.action) {
      case "ls": {
        const listings = await listWorktrees(projectDir);
        if (invocation.json) process.stdout.write(`${JSON.stringify(listings)}\n`);
        else out(formatListings(listings));
        return 0;
      }
      case "merge": {
        const outcome = await mergeWorktree(projectDir, { name: invocation.name }, { markers: true });
        out(formatMerge(invocation.name, outcome));
        return outcome.status === "conflict" ? 1 : 0;
      }
      case "rm": {
        await removeWorktree(projectDir, invocation.name, { force: invocation.force });
        out(`removed worktree ${invocation.name} and its branch`);
        return 0;
      }
    }
  } catch (e) {
    throw e instanceof WorktreeError ? new HelError(e.message, e.code === "name" || e.code === "missing" ? 2 : 1) : e;
  }
}

const lines = (files: readonly FileChange[]) => files.reduce((sum, f) => ({ added: sum.added + f.added, removed: sum.removed + f.removed }), { added: 0, removed: 0 });

function summary(files: readonly FileChange[]): string {
  const { added, removed } = lines(files);
  return `${count(files.length, "file")} (+${added} −${removed})`;
}

export function formatListings(listings: readonly WorktreeListing[]): string {
  if (listings.length === 0) return "no worktrees";
  return listings.map((l) => `${l.name}  ${l.branch}${l.session ? `  session ${l.session}` : ""}  ${summary(l.files)}  ${l.kept}`).join("\n");
}

export function formatMerge(name: string, outcome: MergeOutcome): string {
  if (outcome.status === "no changes") return `worktree ${name} changed nothing; it is removed`;
  if (outcome.status === "applied") return `merged worktree ${name}: ${summary(outcome.files)}; it is removed`;
  const text = outcome.conflicts.filter((c) => c.kind === "text").map((c) => c.path);
  const other = outcome.conflicts.filter((c) => c.kind !== "text").map((c) => `${c.path} (${c.kind}: the project's side kept)`);
  return [
    `merged worktree ${name} with conflicts:`,
    ...(text.length > 0 ? [`  resolve the conflict markers in: ${text.join(", ")}`] : []),
    ...(other.length > 0 ? [`  not merged, its side is in the worktree's branch: ${other.join(", ")}`] : []),
    `then \`hel worktrees rm ${name}\``,
  ].join("\n");
}

/**
 * For `sessions rm`: checks first that the sessions' worktrees hold nothing unmerged (unless `force`),
 * so that a refusal removes nothing; `remove` then removes those of the sessions that went.
 */
export async function sessionWorktrees(projectDir: string, sessions: readonly string[], force: boolean): Promise<{ remove(removed: readonly string[]): Promise<string[]> }> {
  const none = { remove: async () => [] };
  const unmerged = await unmergedOfSessions(projectDir, sessions).catch((e: unknown) => {
    // A project without git has no worktrees.
    if (e instanceof WorktreeError && ["no-git", "not-a-repository", "subfolder"].includes(e.code)) return null;
    throw e;
  });
  if (unmerged === null) return none;
  if (unmerged.length > 0 && !force) {
    throw new HelError(
      `the worktree${unmerged.length === 1 ? "" : "s"} ${unmerged.join(", ")} of ${sessions.length === 1 ? "this session" : "these sessions"} hold${unmerged.length === 1 ? "s" : ""} changes not merged: \`hel worktrees merge <name>\` first, or add --force to discard them`,
      1,
    );
  }
  return {
    async remove(removed) {
      const lines: string[] = [];
      for (const session of removed) for (const name of await removeSessionWorktrees(projectDir, session)) lines.push(`removed worktree ${name}`);
      return lines;
    },
  };
}

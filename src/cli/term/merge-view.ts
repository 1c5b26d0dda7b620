// How an isolated subagent's merge looks under its delegate_task call: one line saying how its worktree
// came into the project (applied, nothing to merge, a conflict, not merged), each file it changed with
// its added and removed lines, and for a kept worktree the two commands that finish it. Read from the
// call's details, never from the result's text. Pure.
import { count } from "../../format.js";
import type { MergeDetails } from "../../tools/types.js";
import { terminalSafe, type Style } from "./kit/style.js";

/** Past this many files, the rest are counted. */
const MAX_FILES = 10;

export function mergeLines(d: MergeDetails, style: Style, indent: string): string[] {
  const name = terminalSafe(d.worktree);
  const changed = d.files.length > 0 ? ` · ${count(d.files.length, "file")}` : "";
  const head = {
    applied: `${style.green("⇄")} worktree ${name} merged${changed}`,
    "no changes": `${style.dim("⇄")} worktree ${name}: no changes`,
    conflict: `${style.red("✗")} worktree ${name}: conflict in ${d.conflicts.map((c) => terminalSafe(c.path)).join(", ")} — nothing of it applied`,
    "not merged": `${style.yellow("⇄")} worktree ${name}: not merged (the subagent did not finish)${changed}`,
  }[d.status];
  const files = d.files.slice(0, MAX_FILES).map((f) => `${indent}    ${terminalSafe(f.path)} ${f.binary ? "(binary)" : `${style.green(`+${f.added}`)} ${style.red(`-${f.removed}`)}`}`);
  if (d.files.length > MAX_FILES) files.push(`${indent}    … ${count(d.files.length - MAX_FILES, "more file")}`);
  const finish = d.kept ? [`${indent}    ${style.dim(`hel worktrees merge ${name} (with conflict markers) · hel worktrees rm ${name} (discard)`)}`] : [];
  return [`${indent}  ${head}`, ...files, ...finish];
}

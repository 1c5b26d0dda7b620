// Making, locking, committing, removing and listing hel's worktrees of a project. A worktree is made
// from the project's working tree as it is now: a snapshot commit (place.ts) on top of HEAD, checked out
// by hel's own store into `.hel/worktrees/<name>/` on a new branch, the user's branch, index, HEAD and
// stash untouched. Nothing is half made: a failure removes what was made. Once its branch and folder are
// gone, `git worktree prune` leaves no entry of it in the project's `.git`.
import { lstat, mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { ensureHelDir } from "../fs/hel-dir.js";
import { ownDir } from "../fs/own-dir.js";
import { checkBranch, checkName } from "./names.js";
import { changedFiles, commitOf, openPlace, snapshot, stateDirOf, tipOf, type Place } from "./place.js";
import { allRecords, anyRecords, dropRecord, isIntact, ownRecord, readRecord, saveRecord } from "./records.js";
import { type FileChange, type Worktree, WorktreeError, type WorktreeListing, type WorktreeRecord } from "./types.js";

export interface MakeWorktree {
  projectDir: string;
  name: string;
  branch: string;
  /** The session the worktree is made for (its children's, or its own with `hel -w`). */
  session?: string;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** The folder of worktree `name` in a project. */
const worktreeDir = (top: string, name: string): string => join(top, ".hel", "worktrees", name);

export async function makeWorktree(options: MakeWorktree): Promise<Worktree> {
  checkName(options.name);
  checkBranch(options.branch);
  const place = await openPlace(options.projectDir, options.env);
  const dir = worktreeDir(place.top, options.name);
  if (await readRecord(place, options.name)) throw new WorktreeError(`a worktree "${options.name}" exists already: pick another name, or \`hel worktrees rm ${options.name}\``, "exists");
  if (await lstat(dir).catch(() => null)) throw new WorktreeError(`.hel/worktrees/${options.name} exists but was not made by hel, which does not use it; remove it yourself`, "not-hel's");
  await ensureHelDir(place.top);
  await ownDir(place.top, join(place.top, ".hel", "worktrees"), true);
  options.signal?.throwIfAborted();
  // The folder is claimed first: of two hel making one name at once, the second stops here.
  await mkdir(dir).catch((e: NodeJS.ErrnoException) => {
    throw e.code === "EEXIST" ? new WorktreeError(`a worktree "${options.name}" exists already: pick another name`, "exists") : e;
  });
  let added = false;
  let admin: string | null = null;
  try {
    const head = await commitOf(place, "HEAD");
    const { commit: base } = await snapshot(place, place.top, join(place.gitDir, "index"), head);
    // git refuses a branch that exists: asked here, not before, it costs no git of its own.
    await place.project(["worktree", "add", "--quiet", "--no-checkout", "-b", options.branch, dir, base], options.signal ? { signal: options.signal } : {}).catch((e: Error) => {
      throw /already exists/.test(e.message) ? new WorktreeError(`the branch ${options.branch} exists already: pick another name, or delete the branch`, "exists") : e;
    });
    added = true;
    const pointer = (await readFile(join(dir, ".git"), "utf8")).trim();
    admin = pointer.startsWith("gitdir: ") ? pointer.slice("gitdir: ".length) : null;
    if (!admin?.startsWith(join(place.commonDir, "worktrees"))) throw new WorktreeError(`git made .hel/worktrees/${options.name} with an unexpected git folder (${pointer})`, "git");
    // The checkout runs in hel's store: no filter of the project runs on the files written.
    await place.own(["read-tree", "-u", "--reset", base], { workTree: dir, index: join(admin, "index"), ...(options.signal ? { signal: options.signal } : {}) });
    await saveRecord(place, {
      version: 1,
      name: options.name,
      dir,
      branch: options.branch,
      base,
      admin,
      ...(options.session ? { session: options.session } : {}),
      madeAt: new Date().toISOString(),
      merged: false,
      conflicts: [],
    });
    return { name: options.name, dir, branch: options.branch, base };
  } catch (e) {
    // Only what this call made: a branch that existed before is another's.
    if (added) await unmake(place, dir, options.branch);
    else await rm(dir, { recursive: true, force: true });
    throw e instanceof WorktreeError ? e : new WorktreeError(`could not make worktree "${options.name}": ${(e as Error).message}`, "git");
  }
}

/** Whether hel keeps any worktree of the project; no git runs. */
export async function hasWorktrees(projectDir: string, env?: NodeJS.ProcessEnv): Promise<boolean> {
  return anyRecords(await stateDirOf(projectDir, env));
}

/** Worktree `name` when hel made it and it is intact; null when there is none; throws for a folder hel did not make. */
export async function openWorktree(projectDir: string, name: string, env?: NodeJS.ProcessEnv): Promise<Worktree | null> {
  checkName(name);
  const place = await openPlace(projectDir, env);
  if (!(await readRecord(place, name)) && !(await lstat(worktreeDir(place.top, name)).catch(() => null))) return null;
  const { dir, branch, base } = await ownRecord(place, name);
  return { name, dir, branch, base };
}

/** Removes a worktree's folder, git's entry for it and its branch, whatever state they are in. */
async function unmake(place: Place, dir: string, branch: string): Promise<void> {
  // git's entry goes with the folder; only when git could not remove them is the entry pruned.
  const removed = await place.project(["worktree", "remove", "--force", "--force", dir]).then(
    () => true,
    () => false,
  );
  await rm(dir, { recursive: true, force: true });
  if (!removed) await place.project(["worktree", "prune"]).catch(() => undefined);
  await place.project(["update-ref", "-d", `refs/heads/${branch}`]).catch(() => undefined);
}

/** Why git keeps a worktree locked: a child runs in it, or it is a `hel -w` session's, kept for its --resume. */
const CHILD_LOCK = "a hel child works in it";
export const SESSION_LOCK = "a hel -w session works in it";

/** Marks a worktree in use (git's lock, so that no `git worktree prune` takes it, nor a merge removes it), or no longer. */
export async function lockWorktree(projectDir: string, name: string, locked = true, env?: NodeJS.ProcessEnv, reason = CHILD_LOCK): Promise<void> {
  const place = await openPlace(projectDir, env);
  const record = await ownRecord(place, name);
  if (locked) await place.project(["worktree", "lock", "--reason", reason, record.dir]).catch(alreadyLocked);
  else await place.project(["worktree", "unlock", record.dir]).catch(() => undefined);
}

const alreadyLocked = (e: Error) => {
  if (!/already locked/.test(e.message)) throw e;
};

export interface Committed {
  /** The branch's commit now. */
  commit: string;
  /** Each file it changed since the worktree was made. */
  files: FileChange[];
}

/** Commits what changed in the worktree on its branch (nothing when nothing changed since the last). */
export async function commitWorktree(projectDir: string, wt: Pick<Worktree, "name">, env?: NodeJS.ProcessEnv): Promise<Committed> {
  const place = await openPlace(projectDir, env);
  return commitRecord(place, await ownRecord(place, wt.name));
}

export async function commitRecord(place: Place, record: WorktreeRecord): Promise<Committed> {
  const tip = await tipOf(place, record.branch, record.base);
  const index = join(record.admin, "index");
  // The snapshot's index replaces the worktree's, so `git status` in it shows nothing to commit.
  const { commit } = await snapshot(place, record.dir, index, tip.commit, index, tip.tree);
  if (commit !== tip.commit) await place.project(["update-ref", `refs/heads/${record.branch}`, commit, tip.commit]);
  return { commit, files: await changedFiles(place, record.base, commit) };
}

/** What the worktree changed since it was made, committed or not, without committing anything. */
async function pendingFiles(place: Place, record: WorktreeRecord): Promise<FileChange[]> {
  const tip = await tipOf(place, record.branch, record.base);
  const { commit } = await snapshot(place, record.dir, join(record.admin, "index"), tip.commit, undefined, tip.tree);
  return changedFiles(place, record.base, commit);
}

/**
 * Removes a worktree, its branch and git's entry for it. Refuses changes not merged into the project
 * unless `force`; a folder hel did not make is never removed.
 */
export async function removeWorktree(projectDir: string, name: string, options: { force?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  checkName(name);
  const place = await openPlace(projectDir, options.env);
  const record = await readRecord(place, name);
  if (!record)
    await ownRecord(place, name); // throws: not hel's, or missing
  else await removeRecorded(place, record, options.force ?? false);
}

export async function removeRecorded(place: Place, record: WorktreeRecord, force: boolean): Promise<void> {
  if (!force) {
    if (!(await isIntact(record))) throw new WorktreeError(`.hel/worktrees/${record.name} was changed outside hel; \`hel worktrees rm ${record.name} --force\` discards it`, "not-hel's");
    const files = await pendingFiles(place, record);
    if (files.length > 0)
      throw new WorktreeError(
        `worktree "${record.name}" has changes not merged into the project (${files.length} file${files.length === 1 ? "" : "s"}): \`hel worktrees merge ${record.name}\`, or remove it with --force`,
        "unmerged",
      );
  }
  await unmake(place, record.dir, record.branch);
  await dropRecord(place, record.name);
}

/** The worktrees hel keeps for a project, oldest first, and why each is kept. */
export async function listWorktrees(projectDir: string, env?: NodeJS.ProcessEnv): Promise<WorktreeListing[]> {
  const place = await openPlace(projectDir, env);
  const listings: WorktreeListing[] = [];
  for (const record of await allRecords(place)) {
    const intact = await isIntact(record);
    const files = intact ? await pendingFiles(place, record).catch(() => []) : [];
    const lock = await readFile(join(record.admin, "locked"), "utf8").then(
      (text) => text.trim(),
      () => null,
    );
    listings.push({
      name: record.name,
      ...(record.session ? { session: record.session } : {}),
      branch: record.branch,
      dir: record.dir,
      files,
      kept: keptBecause(record, intact, lock, files),
    });
  }
  return listings;
}

function keptBecause(record: WorktreeRecord, intact: boolean, lock: string | null, files: FileChange[]): string {
  if (!intact) return "changed outside hel";
  if (lock === SESSION_LOCK) return files.length > 0 ? "a hel -w session's, with unmerged changes" : "a hel -w session's";
  if (lock !== null) return "in use";
  if (!record.merged && record.conflicts.length > 0) return `conflict in ${record.conflicts.join(", ")}`;
  if (files.length > 0) return "unmerged changes";
  if (record.conflicts.length > 0) return `merged with conflict markers in ${record.conflicts.join(", ")}`;
  return record.merged ? "merged" : "no changes";
}

/** The worktrees of these sessions that hold changes not merged into the project. */
export async function unmergedOfSessions(projectDir: string, sessions: readonly string[], env?: NodeJS.ProcessEnv): Promise<string[]> {
  const place = await openPlace(projectDir, env);
  const unmerged: string[] = [];
  for (const record of (await allRecords(place)).filter((r) => r.session !== undefined && sessions.includes(r.session))) {
    const files = await pendingFiles(place, record).catch(() => []);
    if (files.length > 0) unmerged.push(record.name);
  }
  return unmerged;
}

/** Removes the worktrees of a session, merged or not (`unmergedOfSessions` asks first); their names. */
export async function removeSessionWorktrees(projectDir: string, session: string, env?: NodeJS.ProcessEnv): Promise<string[]> {
  const place = await openPlace(projectDir, env);
  const records = (await allRecords(place)).filter((r) => r.session === session);
  for (const record of records) await removeRecorded(place, record, true);
  return records.map((r) => r.name);
}

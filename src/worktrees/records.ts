// hel's records of the worktrees it made, one file per worktree in its state folder
// (`<state>/worktrees/<key>/made/<name>.json`), where neither a clone nor a sandboxed command can write.
// A folder under `.hel/worktrees/` without a record, or whose `.git` no longer leads to the git folder
// recorded for it, was not made by hel (or was tampered with) and is never used.
import { lstat, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { ownFolder } from "../changes/checkpoint-git.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import type { Place } from "./place.js";
import { WorktreeError, WorktreeRecord } from "./types.js";

const madeDir = (place: Place) => join(place.stateDir, "made");

export async function saveRecord(place: Place, record: WorktreeRecord): Promise<void> {
  await ownFolder(madeDir(place));
  await writeFileAtomic(join(madeDir(place), `${record.name}.json`), Buffer.from(JSON.stringify(record)));
}

export async function dropRecord(place: Place, name: string): Promise<void> {
  await rm(join(madeDir(place), `${name}.json`), { force: true });
}

/** The record of `name`, or null when hel made no such worktree. */
export async function readRecord(place: Place, name: string): Promise<WorktreeRecord | null> {
  const text = await readFile(join(madeDir(place), `${name}.json`), "utf8").catch(() => null);
  if (text === null) return null;
  const parsed = WorktreeRecord.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : null;
}

/** Whether hel keeps any worktree of the project, asked without git (every resume asks). */
export async function anyRecords(stateDir: string): Promise<boolean> {
  return (await readdir(join(stateDir, "made")).catch(() => [] as string[])).some((n) => n.endsWith(".json"));
}

export async function allRecords(place: Place): Promise<WorktreeRecord[]> {
  const names = await readdir(madeDir(place)).catch(() => [] as string[]);
  const records = await Promise.all(names.filter((n) => n.endsWith(".json")).map((n) => readRecord(place, n.slice(0, -".json".length))));
  return records.filter((r): r is WorktreeRecord => r !== null).sort((a, b) => a.madeAt.localeCompare(b.madeAt));
}

/** Whether the folder of `record` is still the worktree hel made: a real folder whose `.git` leads to the recorded git folder and back. */
export async function isIntact(record: WorktreeRecord): Promise<boolean> {
  const info = await lstat(record.dir).catch(() => null);
  if (!info?.isDirectory()) return false;
  const pointer = await readFile(join(record.dir, ".git"), "utf8").catch(() => "");
  const back = await readFile(join(record.admin, "gitdir"), "utf8").catch(() => "");
  return pointer.trim() === `gitdir: ${record.admin}` && back.trim() === join(record.dir, ".git");
}

/** The record of `name`, checked: throws unless hel made it and it is intact. */
export async function ownRecord(place: Place, name: string): Promise<WorktreeRecord> {
  const record = await readRecord(place, name);
  if (!record) {
    const there = await lstat(join(place.top, ".hel", "worktrees", name)).catch(() => null);
    throw there
      ? new WorktreeError(`.hel/worktrees/${name} was not made by hel, which does not use it; remove it yourself`, "not-hel's")
      : new WorktreeError(`no worktree "${name}": \`hel worktrees ls\` lists them`, "missing");
  }
  if (!(await isIntact(record))) throw new WorktreeError(`.hel/worktrees/${name} was changed outside hel (its .git no longer leads to hel's worktree); \`hel worktrees rm ${name} --force\` discards it`, "not-hel's");
  return record;
}

// A merge into the project's working tree is journaled in hel's state folder (which neither a clone nor
// a sandboxed command can write, so no forged journal can make hel write a file): each file's blob
// before and after, written whole before the first file changes. Each file is replaced whole (a rename),
// so after a kill -9 every file is either as before or as after; the next start (`recoverMerges`)
// finishes the merge when every file still is one of the two, and otherwise (someone edited one since)
// puts the merged ones back as they were and keeps the worktree, and says which it did.
import { lstat, readFile, readlink, rm } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { withStoreLock } from "../changes/checkpoint-git.js";
import { removeBeneath, removeLeftTemporaries, writeBeneath } from "../changes/beneath-files.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { blobId, blobOf, openPlace, stateDirOf, type Place } from "./place.js";
import { readRecord, saveRecord } from "./records.js";
import { removeRecorded } from "./worktrees.js";

const Side = z.object({ mode: z.string().regex(/^1(00644|00755|20000)$/), oid: z.string().regex(/^[0-9a-f]{40,64}$/) }).nullable();
export type Side = z.infer<typeof Side>;

const Entry = z.object({
  // A project-relative path that stays inside the project: no "..", no absolute path, no empty part.
  path: z.string().refine((p) => p.split("/").every((part) => part !== "" && part !== "." && part !== ".." && part !== ".git") && !p.startsWith(".hel/"), "a path inside the project"),
  before: Side,
  after: Side,
});
export type Entry = z.infer<typeof Entry>;

const Journal = z.object({
  version: z.literal(1),
  name: z.string(),
  entries: z.array(Entry),
  /** The worktree goes once its changes are in (a clean merge of a worktree no child or session still uses). */
  removeAfter: z.boolean(),
  /** Files written with conflict markers. */
  conflicts: z.array(z.string()),
  /** Every change of the worktree is in the project once written (no conflict kept the project's side). */
  complete: z.boolean(),
  /** The worktree's commit merged: a worktree that stays counts its changes from there on. */
  tip: z.string().regex(/^[0-9a-f]{40,64}$/),
});
export type Journal = z.infer<typeof Journal>;

const JOURNAL = "journal.json";
const journalPath = (place: Place) => join(place.stateDir, JOURNAL);

const queues = new Map<string, Promise<unknown>>();

/** Runs `work` alone for the project: in this process in the order asked, across processes under hel's lock. */
export function serialized<T>(place: Place, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const before = queues.get(place.stateDir) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(() => withStoreLock(place.stateDir, work, signal));
  queues.set(place.stateDir, mine);
  return mine;
}

/** Whether the file at `path` is `side` (null: absent). */
export async function isOnDisk(place: Place, path: string, side: Side): Promise<boolean> {
  const full = join(place.top, path);
  const info = await lstat(full).catch(() => null);
  if (side === null || info === null) return side === null && info === null;
  if (side.mode === "120000") return info.isSymbolicLink() && blobId(place, Buffer.from(await readlink(full))) === side.oid;
  if (!info.isFile() || ((info.mode & 0o100) !== 0) !== (side.mode === "100755")) return false;
  return blobId(place, await readFile(full)) === side.oid;
}

async function put(place: Place, path: string, side: Side): Promise<void> {
  if (side === null) return removeBeneath(place.top, path);
  const data = await blobOf(place, side.oid);
  await writeBeneath(place.top, path, side.mode === "120000" ? { kind: "symlink", target: data.toString() } : { kind: "file", data, executable: side.mode === "100755" });
}

// A test's window to kill hel between two files of a merge; the variable is unset in use.
const pauseMs = () => Number(process.env.HEL_TEST_MERGE_PAUSE_MS) || 0;

/** Journals the merge, writes it into the project (removals first), then records it and tidies up. Run serialized. */
export async function applyJournaled(place: Place, journal: Journal): Promise<void> {
  await writeFileAtomic(journalPath(place), Buffer.from(JSON.stringify(journal)));
  const ordered = [...journal.entries.filter((e) => e.after === null), ...journal.entries.filter((e) => e.after !== null)];
  for (const entry of ordered) {
    if (pauseMs() > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs()));
    await put(place, entry.path, entry.after);
  }
  await settle(place, journal, true);
}

/** Records the outcome on the worktree's record, removes the worktree when due, then the journal. */
async function settle(place: Place, journal: Journal, merged: boolean): Promise<void> {
  const record = await readRecord(place, journal.name);
  if (record) {
    if (merged && journal.removeAfter) await removeRecorded(place, record, true);
    else if (merged && journal.complete) await saveRecord(place, { ...record, base: journal.tip, merged: true, conflicts: journal.conflicts });
    else await saveRecord(place, { ...record, merged: false, conflicts: journal.conflicts });
  }
  await rm(journalPath(place), { force: true });
}

/**
 * Finishes or rolls back a merge a killed hel left half done; null when none was. The line says which,
 * for the start of the next run.
 */
export async function recoverMerges(projectDir: string, env?: NodeJS.ProcessEnv): Promise<string | null> {
  // Looked for without git first: every start asks, and nearly always there is none. A journal exists
  // only where hel made a worktree, and hel never removes the folder that holds them, so without it the
  // state folder (whose name needs a hash) is not even looked up.
  if (!(await lstat(join(projectDir, ".hel", "worktrees")).catch(() => null))) return null;
  if (!(await lstat(join(await stateDirOf(projectDir, env), JOURNAL)).catch(() => null))) return null;
  const place = await openPlace(projectDir, env);
  return serialized(place, () => recoverNow(place));
}

/** Finishes or rolls back the merge the journal holds, if any; run serialized. */
export async function recoverNow(place: Place): Promise<string | null> {
  const text = await readFile(journalPath(place), "utf8").catch(() => null);
  if (text === null) return null;
  const parsed = Journal.safeParse(JSON.parse(text));
  if (!parsed.success) {
    await rm(journalPath(place), { force: true });
    return "the journal of an interrupted worktree merge could not be read and was removed; check `git status`";
  }
  const journal = parsed.data;
  await removeLeftTemporaries(
    place.top,
    journal.entries.map((e) => e.path),
  );
  const states = await Promise.all(journal.entries.map(async (e) => ((await isOnDisk(place, e.path, e.after)) ? "after" : (await isOnDisk(place, e.path, e.before)) ? "before" : "other")));
  const count = `${journal.entries.length} file${journal.entries.length === 1 ? "" : "s"}`;
  if (!states.includes("other")) {
    for (const [i, entry] of journal.entries.entries()) if (states[i] === "before") await put(place, entry.path, entry.after);
    await settle(place, journal, true);
    return `the merge of worktree "${journal.name}" was interrupted; hel finished it (${count})`;
  }
  for (const [i, entry] of journal.entries.entries()) if (states[i] === "after") await put(place, entry.path, entry.before);
  await settle(place, { ...journal, conflicts: journal.entries.filter((_, i) => states[i] === "other").map((e) => e.path) }, false);
  return `the merge of worktree "${journal.name}" was interrupted and files changed since; hel rolled it back (${count}) and kept the worktree`;
}

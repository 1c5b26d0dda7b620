// Merging a worktree's changes into the project's working tree: a 3-way merge whose base is the commit
// the worktree started from, whose "ours" is a snapshot of the project's files now (the user's edits and
// other merges included) and whose "theirs" is the worktree's branch, all in hel's store
// (`git merge-tree --write-tree`, no driver or filter of the project). All or nothing: any conflict
// applies nothing and keeps the worktree, unless `markers` asks for git-style conflict markers to be
// written for the user. A file that changed on disk after the snapshot is never written over: the merge
// starts again from a new snapshot, and after a few such rounds reports it as a conflict. Merges of one
// project run one at a time, in the order asked, each journaled (journal.ts).
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { applyJournaled, isOnDisk, recoverNow, serialized, type Entry } from "./journal.js";
import { blobOf, openPlace, snapshot, type Place } from "./place.js";
import { ownRecord, saveRecord } from "./records.js";
import type { Conflict, ConflictKind, MergeOutcome, Worktree } from "./types.js";
import { type Committed, commitRecord, removeRecorded } from "./worktrees.js";

export interface MergeOptions {
  /** Write the merge with conflict markers rather than refuse it (`hel worktrees merge`). */
  markers?: boolean;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** The worktree's commit just made (commitWorktree), nothing having worked in it since: not made again. */
  committed?: Committed;
  /** Tests only: runs between the snapshot of the project and the check of its files before writing. */
  beforeWrite?: () => Promise<void>;
}

const ROUNDS = 3;
const HUNKS = 5;
const HUNK_LINES = 40;
const HUNK_CHARS = 4000;

export async function mergeWorktree(projectDir: string, wt: Pick<Worktree, "name">, options: MergeOptions = {}): Promise<MergeOutcome> {
  const place = await openPlace(projectDir, options.env);
  return serialized(place, () => mergeNow(place, wt.name, options), options.signal);
}

async function mergeNow(place: Place, name: string, { markers = false, beforeWrite, committed }: MergeOptions): Promise<MergeOutcome> {
  // A merge a killed hel left half done is settled before another starts.
  await recoverNow(place);
  const record = await ownRecord(place, name);
  const { commit: theirs, files } = committed ?? (await commitRecord(place, record));
  // A worktree still in use (a child runs, a `hel -w` session) stays after its merge.
  const inUse = await lstat(join(record.admin, "locked")).then(
    () => true,
    () => false,
  );
  // No file differs from the base: the trees are the same.
  if (files.length === 0) {
    if (!inUse) await removeRecorded(place, record, true);
    return { status: "no changes", files: [], conflicts: [] };
  }
  let moved: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const ours = await snapshot(place, place.top, join(place.gitDir, "index"), record.base);
    const mergeTree = (sides: [string, string]) => place.own(["merge-tree", "--write-tree", "-z", ...sides], { exitCodes: [1] });
    let [merged, stages] = parseMergeTree(await mergeTree([ours.commit, theirs]), [ours.commit, theirs]);
    // A conflict is merged again under names of hel's store's own, so that its markers say which side is which.
    if (stages.size > 0) {
      const out = await withNames(place, [ours.commit, theirs], () => mergeTree(["project", record.branch]), record.branch);
      [merged, stages] = parseMergeTree(out, ["project", record.branch]);
    }
    const conflicts = await describeConflicts(place, merged, stages);
    if (conflicts.length > 0 && !markers) {
      await saveRecord(place, { ...record, conflicts: conflicts.map((c) => c.path) });
      return { status: "conflict", files, conflicts };
    }
    const entries = await changes(place, ours.tree, merged);
    await beforeWrite?.();
    const onDisk = await Promise.all(entries.map((e) => isOnDisk(place, e.path, e.before)));
    moved = entries.filter((_, i) => !onDisk[i]).map((e) => e.path);
    if (moved.length > 0) continue;
    const complete = conflicts.every((c) => c.kind === "text");
    await applyJournaled(place, { version: 1, name, entries, removeAfter: !inUse && conflicts.length === 0, conflicts: conflicts.map((c) => c.path), complete, tip: theirs });
    return { status: conflicts.length > 0 ? "conflict" : "applied", files, conflicts };
  }
  await saveRecord(place, { ...record, conflicts: moved });
  return { status: "conflict", files, conflicts: moved.map((path) => ({ path, kind: "text", ours: [], theirs: [], truncated: false })) };
}

/** Runs `work` with the store's branches `project` and `branch` naming the two commits, then drops them. */
async function withNames<T>(place: Place, [ours, theirs]: [string, string], work: () => Promise<T>, branch: string): Promise<T> {
  // One git each way: both refs in one transaction.
  const refs = ["refs/heads/project", `refs/heads/${branch}`];
  await place.own(["update-ref", "--stdin"], { input: `update ${refs[0]} ${ours}\nupdate ${refs[1]} ${theirs}\n` });
  try {
    return await work();
  } finally {
    await place.own(["update-ref", "--stdin"], { input: refs.map((ref) => `delete ${ref}\n`).join("") }).catch(() => undefined);
  }
}

type Stage = { mode: string; oid: string };
type Stages = Map<string, Partial<Record<1 | 2 | 3, Stage>>>;

/**
 * The merged tree and, per conflicted path, its stages (1 base, 2 ours, 3 theirs). Where the two sides
 * made different kinds of file (a file and a link) git keeps both, one under `<path>~<label>`: they are
 * one conflict of the path.
 */
function parseMergeTree(out: string, labels: readonly string[]): [string, Stages] {
  const fields = out.split("\0");
  const stages: Stages = new Map();
  const paths = new Set(fields.slice(1).map((field) => field.slice(field.indexOf("\t") + 1)));
  const original = (path: string) => labels.map((label) => path.slice(0, -`~${label}`.length)).find((p, i) => path.endsWith(`~${labels[i]}`) && paths.has(p)) ?? path;
  for (const field of fields.slice(1)) {
    if (field === "") break;
    const tab = field.indexOf("\t");
    const [mode, oid, stage] = field.slice(0, tab).split(" ");
    const path = original(field.slice(tab + 1));
    stages.set(path, { ...stages.get(path), [Number(stage)]: { mode: mode!, oid: oid! } });
  }
  return [fields[0]!.trim(), stages];
}

const isBinary = (data: Buffer) => data.subarray(0, 8000).includes(0);

async function describeConflicts(place: Place, merged: string, stages: Stages): Promise<Conflict[]> {
  const conflicts: Conflict[] = [];
  for (const [path, { 2: ours, 3: theirs }] of stages) {
    let kind: ConflictKind;
    if (!ours || !theirs) kind = "deleted";
    else if (ours.mode !== theirs.mode) kind = "mode";
    else if (isBinary(await blobOf(place, ours.oid)) || isBinary(await blobOf(place, theirs.oid))) kind = "binary";
    else kind = "text";
    const hunks = kind === "text" ? await markedHunks(place, merged, path) : { ours: [], theirs: [], truncated: false };
    conflicts.push({ path, kind, ...hunks });
  }
  return conflicts;
}

/** Both sides of the conflicting hunks git marked in the merged file, bounded. */
async function markedHunks(place: Place, merged: string, path: string): Promise<Pick<Conflict, "ours" | "theirs" | "truncated">> {
  const text = (await place.ownBuffer(["cat-file", "blob", `${merged}:${path}`]).catch(() => Buffer.alloc(0))).toString("utf8");
  const ours: string[] = [];
  const theirs: string[] = [];
  let truncated = false;
  let side: string[] | null = null;
  let hunk: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("<<<<<<< ")) {
      side = ours;
      hunk = [];
    } else if (side === ours && line === "=======") {
      truncated = keep(ours, hunk) || truncated;
      side = theirs;
      hunk = [];
    } else if (side === theirs && line.startsWith(">>>>>>> ")) {
      truncated = keep(theirs, hunk) || truncated;
      side = null;
    } else if (side) hunk.push(line);
  }
  return { ours, theirs, truncated };
}

/** Adds a hunk within the bounds; true when something was left out. */
function keep(hunks: string[], lines: string[]): boolean {
  if (hunks.length >= HUNKS) return true;
  const text = lines.slice(0, HUNK_LINES).join("\n");
  hunks.push(text.slice(0, HUNK_CHARS));
  return lines.length > HUNK_LINES || text.length > HUNK_CHARS;
}

/** What must change in the project to turn tree `from` into `to`: per file, before and after. */
async function changes(place: Place, from: string, to: string): Promise<Entry[]> {
  const fields = (await place.own(["diff-tree", "-r", "-z", "--no-renames", from, to])).split("\0");
  const entries: Entry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, oldOid, newOid] = fields[i]!.slice(1).split(" ");
    // A nested repository (a gitlink) is the user's to update.
    if (oldMode === "160000" || newMode === "160000") continue;
    entries.push({
      path: fields[i + 1]!,
      before: /^0+$/.test(oldMode!) ? null : { mode: oldMode!, oid: oldOid! },
      after: /^0+$/.test(newMode!) ? null : { mode: newMode!, oid: newOid! },
    });
  }
  return entries;
}

// What a loader made of the files it checks at every start (the named agents, the skills), kept in
// hel's state folder (fs/state-dir.ts: `memo/<name>-<a hash of the project's path>.json`) so that the
// next start reads and checks again only the files that changed: a project with hundreds of them would
// otherwise hold up every first request. Contract:
// - The memo is hel's own because of where it is: outside every project, where neither a clone nor a
//   sandboxed command can write (it used to be `.hel/cache/`, which a clone could commit; that folder
//   is no longer read or written). A signature would do as much, but checking one loads node:crypto
//   before the first request (docs/measured.md). Its header names the project it is of.
// - An entry is found by the file's path and its identity (device, inode, size, mtime, ctime): any
//   write to a file, a rename over it or a chmod gives it a new ctime, so a changed file is never
//   found. A file changed less than RACY_MS before this run read it is not kept, since timestamps
//   move in coarse steps and a second change within the same one would look like no change.
// - The file says what made it (`stamp`: the loader's checks, which differ from build to build), and
//   its modification time is a seal: hel sets it to a whole second long past, named in the file, and
//   any write to the file since (an editor's, a tool's) gives it the time of that write instead.
//   Another stamp, a broken seal or anything unreadable is an empty memo. Like a snapshot's messages,
//   entries that hel wrote and nobody changed are not checked one by one: a checksum would load
//   node:zlib, and a check per entry would cost what the memo saves.
// - Values hold nothing secret: a loader masks this run's secrets in what it keeps, and a memo that
//   holds one of this run's secrets (kept by a run that had other secrets) is empty, so that no value
//   taken from it needs masking again.
// - Entries are kept in the order a run asked for them, and a run that asks in the same order finds
//   each where the last left it: the memo of hundreds of files is a few flat arrays, read with no
//   lookup per file.
// - A memo that cannot be read or written only makes the start slower: it is never an error.
import { closeSync, constants, fstatSync, openSync, type Stats } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "../zod.js";
import { holdsSecret } from "../redact.js";
import { replaceFileSync } from "./own-file.js";
import { readOpenedSync } from "./regular-file.js";
import { ensureStateDir, userStateDir } from "./state-dir.js";

/** How recent a change may be for its file still to be read again next time. */
const RACY_MS = 2000;
/** A memo is a few hundred small entries; one past this is not hel's. */
const MAX_MEMO_BYTES = 8 * 1024 * 1024;
/** The numbers of a file's identity: device, inode, size, mtime, ctime. */
const ID_LENGTH = 5;

const MemoHeaderSchema = z.object({ stamp: z.string(), seal: z.number().int(), project: z.string() });

/** FNV-1a of the project's path, in hex: a short file name; the header's `project` settles a clash. */
function pathHash(path: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** Where the memo `name` of the project `projectDir` (a real path) is kept. */
export const memoFile = (projectDir: string, name: string, env: NodeJS.ProcessEnv = process.env): string => join(userStateDir(env), "memo", `${name}-${pathHash(projectDir)}.json`);

/** The body: each file's path, its identity in `ids` (ID_LENGTH numbers a file), and the value made of it. */
interface Kept<T> {
  paths: string[];
  ids: number[];
  values: T[];
}

/**
 * A whole second between 2001 and 2017, as a seal: no write gives a file such a time, and an even
 * one, since some file systems keep modification times in steps of two seconds.
 */
const newSeal = (): number => 1_000_000_000 + 2 * Math.floor(Math.random() * 250_000_000);

export interface MemoSettings {
  /** The loader's checks: a memo made by other ones is empty. */
  stamp: string;
  /** This run's secrets, masked in every value it keeps. */
  secrets: readonly string[];
  /** When this run began reading the files: one changed less than RACY_MS before is read again next time. */
  now?: number;
}

export class FileMemo<T> {
  /** This run's entries, in the order it asked for them: those found unchanged, and those read anew. */
  private readonly paths: string[] = [];
  private readonly ids: number[] = [];
  private readonly values: T[] = [];
  /** Whether this run kept anything the memo did not hold as it holds it. */
  private changed = false;
  /** Where the next file asked for is, when a run asks in the order of the last. */
  private next = 0;
  /** The kept paths' places, made only when a file is not where the order says. */
  private places: Map<string, number> | null = null;

  private constructor(
    private readonly file: string,
    private readonly project: string,
    private readonly stamp: string,
    private readonly kept: Kept<T>,
    private readonly now: number,
  ) {}

  /** The memo `name` of the project, made by loader checks `stamp`; empty when there is none that fits. */
  static open<T>(projectDir: string, name: string, { stamp, secrets, now = Date.now() }: MemoSettings): FileMemo<T> {
    const file = memoFile(projectDir, name);
    return new FileMemo<T>(file, projectDir, stamp, readMemo<T>(file, projectDir, stamp, secrets), now);
  }

  /** What the loader made of the file at `path` when it was as `stats` say it is now; undefined when it was not kept so. */
  get(path: string, stats: Stats): T | undefined {
    const { paths, ids, values } = this.kept;
    let at = this.next;
    if (paths[at] !== path) {
      this.changed = true;
      this.places ??= new Map(paths.map((p, i) => [p, i]));
      at = this.places.get(path) ?? -1;
      if (at < 0) return undefined;
    }
    this.next = at + 1;
    const id = at * ID_LENGTH;
    if (ids[id + 4] !== stats.ctimeMs || ids[id + 3] !== stats.mtimeMs || ids[id + 2] !== stats.size || ids[id + 1] !== stats.ino || ids[id] !== stats.dev) return undefined;
    this.keep(path, stats, values[at]!);
    return values[at];
  }

  /** Keeps what the loader made of the file at `path`, whose stats were taken before it was read. */
  put(path: string, stats: Stats, value: T): void {
    this.changed = true;
    if (stats.ctimeMs < this.now - RACY_MS) this.keep(path, stats, value);
  }

  /**
   * Writes the entries of this run, when they differ from those kept: files gone or changed drop out.
   * Off the way to the first request: a caller need not wait, and the promise never rejects.
   */
  save(): Promise<void> {
    if (!this.changed && this.paths.length === this.kept.paths.length) return Promise.resolve();
    const saving = this.write();
    pending.add(saving);
    return saving.finally(() => pending.delete(saving));
  }

  private async write(): Promise<void> {
    const body = JSON.stringify({ paths: this.paths, ids: this.ids, values: this.values } satisfies Kept<T>);
    try {
      await ensureStateDir(process.env);
      await mkdir(dirname(this.file), { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== "EEXIST") throw e;
      });
      const seal = newSeal();
      replaceFileSync(this.file, `${JSON.stringify({ stamp: this.stamp, seal, project: this.project })}\n${body}`, seal);
    } catch {
      // Only the next start is slower.
    }
  }

  private keep(path: string, stats: Stats, value: T): void {
    this.paths.push(path);
    this.ids.push(stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs);
    this.values.push(value);
  }
}

const pending = new Set<Promise<void>>();

/** Test seam: settles once every memo this process began to save is written (or failed). */
export async function memoSaves(): Promise<void> {
  await Promise.all(pending);
}

const empty = <T>(): Kept<T> => ({ paths: [], ids: [], values: [] });

function readMemo<T>(file: string, project: string, stamp: string, secrets: readonly string[]): Kept<T> {
  let text: string;
  let modified: number;
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      const stats = fstatSync(fd);
      modified = stats.mtimeMs;
      text = readOpenedSync(fd, MAX_MEMO_BYTES, stats);
    } finally {
      closeSync(fd);
    }
  } catch {
    return empty();
  }
  const newline = text.indexOf("\n");
  if (newline < 0) return empty();
  try {
    const header = MemoHeaderSchema.safeParse(JSON.parse(text.slice(0, newline)));
    if (!header.success || header.data.stamp !== stamp || header.data.project !== project || header.data.seal * 1000 !== modified) return empty();
    const body = text.slice(newline + 1);
    if (holdsSecret(body, secrets)) return empty();
    const kept = JSON.parse(body) as Partial<Kept<T>> | null;
    const { paths, ids, values } = kept ?? {};
    // Sealed by hel, so whole as it wrote it; the shape is checked only as far as a lookup relies on it.
    if (!Array.isArray(paths) || !Array.isArray(ids) || !Array.isArray(values) || ids.length !== paths.length * ID_LENGTH || values.length !== paths.length) return empty();
    return { paths, ids, values };
  } catch {
    return empty();
  }
}

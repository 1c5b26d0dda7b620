// What a loader made of the files it checks at every start (the named agents, the skills), kept in
// `.hel/cache/<name>.json` so that the next start reads and checks again only the files that changed:
// a project with hundreds of them would otherwise hold up every first request. Contract:
// - An entry is found by the file's path and its identity (device, inode, size, mtime, ctime): any
//   write to a file, a rename over it or a chmod gives it a new ctime, so a changed file is never
//   found. A file changed less than RACY_MS before this run read it is not kept, since timestamps
//   move in coarse steps and a second change within the same one would look like no change.
// - The file says what made it (`stamp`: the loader's checks, which differ from build to build), and
//   its modification time is a seal: hel sets it to a whole second long past, named in the file, and
//   any write to the file since (an editor's, a tool's) gives it the time of that write instead.
//   Another stamp, a broken seal or anything unreadable is an empty memo. Like a snapshot's messages,
//   entries that hel wrote and nobody changed are not checked one by one: a checksum would load
//   node:zlib, and a check per entry would cost what the memo saves. A cloned project cannot plant an
//   entry that is used, since no one can choose a file's device, inode and ctime, and commands cannot
//   write under `.hel/`.
// - A memo that cannot be read or written only makes the start slower: it is never an error.
// - Values must hold nothing secret: a loader masks the key in what it keeps, as in what it sends.
import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "../zod.js";
import { helDir } from "./hel-dir.js";
import { ownDirectorySync, replaceFileSync } from "./own-file.js";
import { readOpenedSync } from "./regular-file.js";

/** How recent a change may be for its file still to be read again next time. */
const RACY_MS = 2000;
/** A memo is a few hundred small entries; one past this is not hel's. */
const MAX_MEMO_BYTES = 8 * 1024 * 1024;

const MemoHeaderSchema = z.object({ stamp: z.string(), seal: z.number().int() });

/**
 * A whole second between 2001 and 2017, as a seal: no write gives a file such a time, and an even
 * one, since some file systems keep modification times in steps of two seconds.
 */
const newSeal = (): number => 1_000_000_000 + 2 * Math.floor(Math.random() * 250_000_000);

interface Entry<T> {
  /** The file's identity when it was read: device, inode, size, mtime and ctime. */
  id: [number, number, number, number, number];
  value: T;
}

const identityOf = (stats: Stats): Entry<unknown>["id"] => [stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs];

/** Whether a file's stats are still those it had when it was read. */
const unchanged = (id: Entry<unknown>["id"], stats: Stats): boolean =>
  id[4] === stats.ctimeMs && id[3] === stats.mtimeMs && id[2] === stats.size && id[1] === stats.ino && id[0] === stats.dev;

export class FileMemo<T> {
  /** The paths of the kept entries this run found unchanged. */
  private readonly seen: string[] = [];
  /** The entries this run read anew. */
  private readonly added = new Map<string, Entry<T>>();
  private changed = false;

  private constructor(
    private readonly file: string,
    private readonly stamp: string,
    /** As parsed: a plain object, looked up only by own keys. */
    private readonly kept: Record<string, Entry<T>>,
    /** When this run began reading the files: one changed less than RACY_MS before is read again next time. */
    private readonly now: number,
  ) {}

  /**
   * The memo `name` of the project, made by loader checks `stamp`; empty when there is none that fits.
   * `now` is when the run reads the files (a test gives a later time, to be a later start).
   */
  static open<T>(projectDir: string, name: string, stamp: string, now = Date.now()): FileMemo<T> {
    const file = join(helDir(projectDir), "cache", `${name}.json`);
    return new FileMemo<T>(file, stamp, readMemo<T>(file, stamp), now);
  }

  /** What the loader made of the file at `path` when it was as `stats` say it is now; undefined when it was not kept so. */
  get(path: string, stats: Stats): T | undefined {
    if (!Object.hasOwn(this.kept, path)) return undefined;
    const entry = this.kept[path]!;
    if (!unchanged(entry.id, stats)) return undefined;
    this.seen.push(path);
    return entry.value;
  }

  /** Keeps what the loader made of the file at `path`, whose stats were taken before it was read. */
  put(path: string, stats: Stats, value: T): void {
    this.changed = true;
    if (stats.ctimeMs < this.now - RACY_MS) this.added.set(path, { id: identityOf(stats), value });
  }

  /** Writes the entries of this run, when they differ from those kept: files gone or changed drop out. */
  save(): void {
    if (!this.changed && this.seen.length === Object.keys(this.kept).length) return;
    const current = Object.create(null) as Record<string, Entry<T>>;
    for (const path of this.seen) current[path] = this.kept[path]!;
    for (const [path, entry] of this.added) current[path] = entry;
    const body = JSON.stringify(current);
    const cache = dirname(this.file);
    try {
      // .hel/ itself is made by the session's first save, with the .gitignore that keeps it out of git.
      const hel = lstatSync(dirname(cache), { throwIfNoEntry: false });
      if (!hel?.isDirectory()) return;
      ownDirectorySync(cache);
      const seal = newSeal();
      replaceFileSync(this.file, `${JSON.stringify({ stamp: this.stamp, seal })}\n${body}`, seal);
    } catch {
      // Only the next start is slower.
    }
  }
}

function readMemo<T>(file: string, stamp: string): Record<string, Entry<T>> {
  let text: string;
  let modified: number;
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      modified = fstatSync(fd).mtimeMs;
      text = readOpenedSync(fd, MAX_MEMO_BYTES);
    } finally {
      closeSync(fd);
    }
  } catch {
    return {};
  }
  const newline = text.indexOf("\n");
  if (newline < 0) return {};
  try {
    const header = MemoHeaderSchema.safeParse(JSON.parse(text.slice(0, newline)));
    if (!header.success || header.data.stamp !== stamp || header.data.seal * 1000 !== modified) return {};
    const entries: unknown = JSON.parse(text.slice(newline + 1));
    return typeof entries === "object" && entries !== null ? (entries as Record<string, Entry<T>>) : {};
  } catch {
    return {};
  }
}

// File checkpoints: the project's working tree recorded in hel's own git store, kept in the user's
// state folder (checkpoint-git.ts says where, and what hel's git may read), so what commands changed
// is covered as well as edits, and a rewind can put every file back. The project's own `.git` and
// anything under its `.hel/` are never read as git's: no planted store, config or attribute runs.
// Left out, and listed in each checkpoint: what `.gitignore` ignores, `.hel/`, every `.git`, files over
// MAX_FILE_BYTES and files holding a secret (the API key). Nested repositories are recorded by their
// working files, not as links to commits. A rewind writes and removes each file itself, beneath the
// project without following a symlink (beneath-files.ts), never touches a file that either side left
// out, and is journaled in the store so that a rewind a kill cut short can be finished.
// A checkpoint is a commit under refs/hel/, so pruning is deleting refs and letting git drop what they alone kept.
import { randomBytes } from "node:crypto";
import { lstat, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { userStateDir } from "../fs/state-dir.js";
import { REWIND_TEMPORARY, removeBeneath, removeLeftTemporaries, writeBeneath } from "./beneath-files.js";
import { CheckpointError, gitFor, openStoreDir, withStoreLock, type GitCall } from "./checkpoint-git.js";

export { CheckpointError, checkpointDir } from "./checkpoint-git.js";

export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface Checkpoint {
  /** The commit that records the tree. */
  commit: string;
  /** Files left out (too big, or holding a secret), relative to the project. */
  leftOut: string[];
}

export interface FileChange {
  /** Relative to the project, "/" between folders. */
  path: string;
  /**
   * What putting the checkpoint back does to the file: restore its content, remove it (it was created
   * since), or keep it as it is (one of the two sides left it out: too big, or holding a secret).
   */
  action: "restore" | "remove" | "keep";
}

/** A rewind of a session's files, kept in the store while it runs and after. */
export interface RewindJournal {
  /** The checkpoint put back. */
  target: string;
  /** The checkpoint of the files just before, which undoes the rewind. */
  before: string;
  at: string;
  /** False while files are being written: a process killed then left the rewind half done. */
  done: boolean;
}

export interface CheckpointOptions {
  env?: NodeJS.ProcessEnv;
  /** Values no checkpoint may hold: a file containing one is left out. */
  secrets?: readonly string[];
}

export interface CheckpointStore {
  /** Records the working tree as it is now, kept by the ref refs/hel/<prefix><commit>. */
  record(prefix: string, message: string, signal?: AbortSignal): Promise<Checkpoint>;
  /** What putting `commit` back would change, against the working tree as it is now. */
  differences(commit: string): Promise<FileChange[]>;
  /**
   * Puts `commit`'s files back: restores what it holds (content and mode), removes what it does not.
   * With `journal`, the rewind is recorded under the prefix before any file changes.
   */
  restore(commit: string, journal?: { prefix: string; before: string }): Promise<FileChange[]>;
  /** The last rewind recorded under `prefix`. */
  journal(prefix: string): Promise<RewindJournal | null>;
  /** Deletes the refs under `prefix` whose commits are not in `keep`, and the objects only they kept. */
  prune(prefix: string, keep: ReadonlySet<string>): Promise<void>;
  /** Deletes everything kept under `prefix`: a removed session's checkpoints and journal. */
  forget(prefix: string): Promise<void>;
  /** A file's text in a checkpoint; null when it has no such file. */
  fileAt(commit: string, path: string): Promise<string | null>;
  /** The files that differ between two checkpoints. */
  changedBetween(from: string, to: string): Promise<string[]>;
  /** Keeps `commits` by refs under `prefix` too (a fork's own). */
  keep(prefix: string, commits: readonly string[]): Promise<void>;
  /** The checkpoints kept under `prefix`, oldest first, with the first line of their message. */
  kept(prefix: string): Promise<{ commit: string; subject: string }[]>;
  /** The store's size on disk in bytes. */
  size(): Promise<number>;
}

const nulSplit = (text: string): string[] => text.split("\0").filter(Boolean);

/** An exclude pattern that matches `path` (relative to its work tree) and nothing else; a line break matches any character. */
const excludeLine = (path: string): string =>
  `/${path
    .replace(/([\\*?[\]!#])/g, "\\$1")
    .replace(/ (?= *$)/g, "\\ ")
    .replace(/[\r\n]/g, "?")}\n`;

const LEFT_OUT = "left-out: ";

/** The checkpoint store of a project, made on first use. Throws CheckpointError without git. */
export async function openCheckpoints(projectDir: string, options: CheckpointOptions = {}): Promise<CheckpointStore> {
  return storeAt(projectDir, (await openStoreDir(projectDir, options.env ?? process.env, true))!, options);
}

/** The project's store when one was ever made; null otherwise (nothing is made). */
export async function findCheckpoints(projectDir: string, options: CheckpointOptions = {}): Promise<CheckpointStore | null> {
  const gitDir = await openStoreDir(projectDir, options.env ?? process.env, false);
  return gitDir ? storeAt(projectDir, gitDir, options) : null;
}

function storeAt(projectDir: string, gitDir: string, options: CheckpointOptions): CheckpointStore {
  const git = gitFor(projectDir, gitDir);
  const excludes = join(gitDir, "info", "exclude");
  // hel's state folder, should the project hold it, is hel's own too.
  const state = relative(projectDir, userStateDir(options.env ?? process.env));
  const baseExcludes = `/.hel/\n.git\n${REWIND_TEMPORARY}*.tmp\n${state && !state.startsWith("..") && !isAbsolute(state) ? excludeLine(state) : ""}`;
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 8).map((s) => Buffer.from(s));
  const locked = <T>(work: () => Promise<T>, signal?: AbortSignal) => withStoreLock(gitDir, work, signal);

  /** Which of `paths` (in `workTree`) the checkpoint must leave out: over the size limit, or holding a secret. */
  const leaveOut = async (workTree: string, paths: readonly string[]): Promise<string[]> => {
    const out: string[] = [];
    for (let i = 0; i < paths.length; i += 64) {
      await Promise.all(
        paths.slice(i, i + 64).map(async (path) => {
          const info = await lstat(join(workTree, path)).catch(() => null);
          if (!info?.isFile()) return;
          if (info.size > MAX_FILE_BYTES) out.push(path);
          else if (secrets.length > 0) {
            const data = await readFile(join(workTree, path)).catch(() => null);
            if (data && secrets.some((s) => data.includes(s))) out.push(path);
          }
        }),
      );
    }
    return out.sort();
  };

  /**
   * Makes the index of the work tree at `prefix` (the project's, or a nested repository's under a
   * temporary index) match its files, less those left out; a nested repository's files are staged
   * under its own work tree first and entered by path, as git would otherwise add a link to its commit.
   * Returns the files left out, relative to the project.
   */
  const stageTree = async (prefix: string, index: string | undefined, signal?: AbortSignal): Promise<string[]> => {
    const call: GitCall = { workTree: join(projectDir, prefix), ...(index ? { index } : {}), ...(signal ? { signal } : {}) };
    await writeFile(excludes, baseExcludes);
    // New and modified files (only they can have become big or come to hold a secret), and, ending in
    // "/", the nested repositories git would not look into.
    const listed = nulSplit(await git(["ls-files", "-z", "--others", "--modified", "--exclude-standard"], call));
    const nested = listed.filter((p) => p.endsWith("/"));
    const leftOut = await leaveOut(call.workTree!, [...new Set(listed.filter((p) => !p.endsWith("/")))]);
    const entries: string[] = [];
    const leftBelow: string[] = [];
    for (const repo of nested) {
      const nestedIndex = join(gitDir, `nested-${randomBytes(6).toString("hex")}.index`);
      try {
        leftBelow.push(...(await stageTree(prefix + repo, nestedIndex, signal)));
        const listed = nulSplit(await git(["ls-files", "-z", "-s"], { workTree: join(projectDir, prefix, repo), index: nestedIndex }));
        for (const line of listed) entries.push(line.replace("\t", `\t${repo}`));
      } finally {
        await rm(nestedIndex, { force: true });
      }
    }
    await writeFile(excludes, baseExcludes + [...leftOut, ...nested].map(excludeLine).join(""));
    // Out of the index before `add`, which would otherwise read a tracked file that is now left out.
    const drop = (paths: string[]) => git(["update-index", "-z", "--force-remove", "--stdin"], { ...call, input: paths.join("\0") + "\0" });
    if (leftOut.length > 0) await drop(leftOut);
    await git(["add", "--all", "--", "."], call);
    const links = nulSplit(await git(["ls-files", "-z", "-s"], call))
      .filter((line) => line.startsWith("160000 "))
      .map((line) => line.slice(line.indexOf("\t") + 1));
    if (links.length > 0) await drop(links);
    if (entries.length > 0) await git(["update-index", "-z", "--index-info"], { ...call, input: entries.join("\0") + "\0" });
    return [...leftOut.map((p) => prefix + p), ...leftBelow].sort();
  };

  const leftOutOf = async (commit: string): Promise<string[]> => {
    const line = (await git(["cat-file", "commit", commit])).split("\n").find((l) => l.startsWith(LEFT_OUT));
    return line ? (JSON.parse(line.slice(LEFT_OUT.length)) as string[]) : [];
  };

  const differences = async (commit: string): Promise<FileChange[]> => {
    const leftOut = await stageTree("", undefined);
    const tree = (await git(["write-tree"])).trim();
    const untouchable = new Set([...leftOut, ...(await leftOutOf(commit))]);
    const lines = nulSplit(await git(["diff-tree", "-r", "-z", "--no-renames", "--name-status", tree, commit]));
    const changes: FileChange[] = [];
    for (let i = 0; i + 1 < lines.length; i += 2) {
      const path = lines[i + 1]!;
      changes.push({ path, action: untouchable.has(path) ? "keep" : lines[i] === "D" ? "remove" : "restore" });
    }
    return changes;
  };

  /** The blobs of `paths` in `commit`, read in batches: what each file is to become. */
  const contents = async function* (commit: string, paths: readonly string[]) {
    const wanted = new Set(paths);
    const listed = nulSplit(await git(["ls-tree", "-r", "-l", "-z", commit]))
      .map((line) => {
        const [meta, path] = [line.slice(0, line.indexOf("\t")), line.slice(line.indexOf("\t") + 1)];
        const [mode, type, oid, size] = meta.split(/\s+/);
        return { path, mode: mode!, type: type!, oid: oid!, size: Number(size) || 0 };
      })
      .filter((e) => e.type === "blob" && wanted.has(e.path));
    for (let i = 0; i < listed.length; ) {
      const batch = [listed[i++]!];
      for (let bytes = batch[0]!.size; i < listed.length && bytes + listed[i]!.size <= 64 * 1024 * 1024; bytes += listed[i++]!.size) batch.push(listed[i]!);
      const out = await git.buffer(["cat-file", "--batch"], batch.map((e) => e.oid).join("\n") + "\n");
      let at = 0;
      for (const entry of batch) {
        const header = out.subarray(at, out.indexOf(10, at)).toString();
        const size = Number(header.split(" ")[2]);
        const start = at + header.length + 1;
        at = start + size + 1;
        yield { ...entry, data: out.subarray(start, start + size) };
      }
    }
  };

  const journalPath = (prefix: string) => join(gitDir, "rewinds", `${prefix.replace(/[^\w-]/g, "_")}.json`);
  const writeJournal = async (prefix: string, journal: RewindJournal) => {
    await mkdir(join(gitDir, "rewinds"), { recursive: true, mode: 0o700 });
    const tmp = `${journalPath(prefix)}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(journal));
    await rename(tmp, journalPath(prefix));
  };

  const prune = async (prefix: string, keep: ReadonlySet<string>) => {
    const refs = (await git(["for-each-ref", "--format=%(refname)", `refs/hel/${prefix}`])).split("\n").filter(Boolean);
    const drop = refs.filter((ref) => !keep.has(ref.slice(`refs/hel/${prefix}`.length)));
    if (drop.length === 0) return;
    await git(["update-ref", "--stdin"], { input: drop.map((ref) => `delete ${ref}\n`).join("") });
    await git(["reflog", "expire", "--expire=now", "--all"]);
    await git(["gc", "--quiet", "--prune=now"]);
  };

  return {
    record(prefix, message, signal) {
      return locked(async () => {
        const leftOut = await stageTree("", undefined, signal);
        const tree = (await git(["write-tree"], signal ? { signal } : {})).trim();
        const body = leftOut.length ? `${message}\n\n${LEFT_OUT}${JSON.stringify(leftOut)}\n` : `${message}\n`;
        const commit = (await git(["commit-tree", tree], { input: body })).trim();
        await git(["update-ref", `refs/hel/${prefix}${commit}`, commit]);
        return { commit, leftOut };
      }, signal);
    },
    differences: (commit) => locked(() => differences(commit)),
    restore(commit, journal) {
      return locked(async () => {
        const changes = await differences(commit);
        const started: RewindJournal = { target: commit, before: journal?.before ?? "", at: new Date().toISOString(), done: false };
        if (journal) await writeJournal(journal.prefix, started);
        const failed: string[] = [];
        for (const { path } of changes.filter((c) => c.action === "remove")) await removeBeneath(projectDir, path).catch(() => failed.push(path));
        const restore = changes.filter((c) => c.action === "restore").map((c) => c.path);
        for await (const entry of contents(commit, restore)) {
          const content = entry.mode === "120000" ? { kind: "symlink" as const, target: entry.data.toString() } : { kind: "file" as const, data: entry.data, executable: entry.mode === "100755" };
          await writeBeneath(projectDir, entry.path, content).catch(() => failed.push(entry.path));
        }
        await removeLeftTemporaries(
          projectDir,
          changes.map((c) => c.path),
        );
        if (journal) await writeJournal(journal.prefix, { ...started, done: true });
        if (failed.length > 0) throw new CheckpointError(`could not put back ${failed.join(", ")}: a folder on the way changed meanwhile (or is not writable) — rewind again`);
        return changes;
      });
    },
    async journal(prefix) {
      const text = await readFile(journalPath(prefix), "utf8").catch(() => null);
      try {
        return text ? (JSON.parse(text) as RewindJournal) : null;
      } catch {
        return null;
      }
    },
    prune: (prefix, keep) => locked(() => prune(prefix, keep)),
    forget: (prefix) =>
      locked(async () => {
        await rm(journalPath(prefix), { force: true });
        await prune(prefix, new Set());
      }),
    async fileAt(commit, path) {
      return git(["cat-file", "blob", `${commit}:${path}`]).catch(() => null);
    },
    async changedBetween(from, to) {
      return nulSplit(await git(["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to]));
    },
    async keep(prefix, commits) {
      await git(["update-ref", "--stdin"], { input: commits.map((commit) => `update refs/hel/${prefix}${commit} ${commit}\n`).join("") });
    },
    async kept(prefix) {
      const out = await git(["for-each-ref", "--sort=committerdate", "--format=%(objectname) %(subject)", `refs/hel/${prefix}`]);
      return out
        .split("\n")
        .filter(Boolean)
        .map((line) => ({ commit: line.slice(0, line.indexOf(" ")), subject: line.slice(line.indexOf(" ") + 1) }));
    },
    async size() {
      const out = await git(["count-objects", "-v"]);
      const kib = (key: string) => Number(/^(\S+): (\d+)$/m.exec(out.split("\n").find((l) => l.startsWith(`${key}:`)) ?? "")?.[2] ?? 0);
      return (kib("size") + kib("size-pack")) * 1024;
    },
  };
}

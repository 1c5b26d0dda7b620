// File checkpoints: the project's working tree recorded in hel's own git directory,
// `.hel/checkpoints/` (its work tree is the project), so what commands changed is covered as well as
// edits, and a rewind can put every file back. The project's own `.git` is never read or written:
// git is always pointed at hel's directory and index, with no system or global config, no hooks and
// no fsmonitor, so nothing a project or a user's config plants runs. Left out: what `.gitignore`
// ignores, `.hel/`, `.git/` (of the project and of nested repositories), and files over
// MAX_FILE_BYTES, which each checkpoint lists. A checkpoint is a commit under refs/hel/, so pruning
// is deleting refs and letting git drop what they alone kept.
import { execFile } from "node:child_process";
import { mkdir, lstat, rm, rmdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface Checkpoint {
  /** The commit that records the tree. */
  commit: string;
  /** Files left out for their size, relative to the project. */
  leftOut: string[];
}

export interface FileChange {
  /** Relative to the project, "/" between folders. */
  path: string;
  /** What putting the checkpoint back does to the file: restore its content, or remove it (it was created since). */
  action: "restore" | "remove";
}

export class CheckpointError extends Error {}

type Git = (args: readonly string[], input?: string, bare?: boolean) => Promise<string>;

/** git, pointed at hel's checkpoint directory with the project as its work tree. */
function gitFor(projectDir: string, gitDir: string): Git {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: gitDir,
    GIT_DIR: gitDir,
    GIT_WORK_TREE: projectDir,
    GIT_INDEX_FILE: join(gitDir, "index"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    LC_ALL: "C",
  };
  const settings = [
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.quotePath=false",
    "core.symlinks=true",
    "gc.auto=0",
    "commit.gpgSign=false",
    "user.name=hel",
    "user.email=hel@localhost",
    "advice.addEmbeddedRepo=false",
  ].flatMap((setting) => ["-c", setting]);
  // Only `init` runs bare: given a work tree, it would write the project's path into the new config.
  const { GIT_WORK_TREE: _, ...bareEnv } = env;
  return (args, input, bare = false) =>
    new Promise((resolve, reject) => {
      const child = execFile("git", [...settings, ...args], { cwd: projectDir, env: bare ? bareEnv : env, maxBuffer: 256 * 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
        if (error) reject(new CheckpointError(`git ${args[0]} failed: ${(stderr || error.message).trim().split("\n")[0]}`));
        else resolve(stdout);
      });
      if (input !== undefined) child.stdin?.end(input);
    });
}

const nulSplit = (text: string): string[] => text.split("\0").filter(Boolean);

export interface CheckpointStore {
  /** Records the working tree as it is now, kept by the ref refs/hel/<prefix><commit>. */
  record(prefix: string, message: string): Promise<Checkpoint>;
  /** What putting `commit` back would change, against the working tree as it is now. */
  differences(commit: string): Promise<FileChange[]>;
  /** Puts `commit`'s files back: restores what it holds (content and mode), removes what it does not. */
  restore(commit: string): Promise<FileChange[]>;
  /** Deletes the refs under `prefix` whose commits are not in `keep`, and the objects only they kept. */
  prune(prefix: string, keep: ReadonlySet<string>): Promise<void>;
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

/** The checkpoint store of a project; its directory is made on first use. Throws CheckpointError without git. */
export async function openCheckpoints(projectDir: string, gitDir = join(projectDir, ".hel", "checkpoints")): Promise<CheckpointStore> {
  const git = gitFor(projectDir, gitDir);
  try {
    await lstat(join(gitDir, "HEAD"));
  } catch {
    await mkdir(gitDir, { recursive: true });
    await git(["init", "--quiet", "--bare"], undefined, true);
  }
  const excludes = join(gitDir, "info", "exclude");
  const baseExcludes = "/.hel/\n.git\n";

  /**
   * Files that would enter the checkpoint but are over the size limit. Only new and modified files can
   * have become big: a file the index holds and that did not change was small when it was added.
   */
  const oversized = async (): Promise<string[]> => {
    const candidates = new Set(nulSplit(await git(["ls-files", "-z", "--others", "--modified", "--exclude-standard"])));
    const sizes = await Promise.all([...candidates].map(async (path) => ({ path, stat: await lstat(join(projectDir, path)).catch(() => null) })));
    return sizes.filter(({ stat }) => stat?.isFile() && stat.size > MAX_FILE_BYTES).map(({ path }) => path).sort();
  };

  /** The index made to match the working tree, less the oversized files; returns them. */
  const stage = async (): Promise<string[]> => {
    await mkdir(dirname(excludes), { recursive: true });
    await writeFile(excludes, baseExcludes);
    const leftOut = await oversized();
    // Exclusion keeps an untracked big file out; one the index already had must be dropped from it.
    await writeFile(excludes, baseExcludes + leftOut.map((p) => `/${p.replace(/([\\*?[\]!#])/g, "\\$1")}\n`).join(""));
    await git(["add", "--all", "--", "."]);
    if (leftOut.length > 0) await git(["rm", "--cached", "--quiet", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"], leftOut.join("\0") + "\0");
    return leftOut;
  };

  const differences = async (commit: string): Promise<FileChange[]> => {
    await stage();
    const tree = (await git(["write-tree"])).trim();
    const lines = nulSplit(await git(["diff-tree", "-r", "-z", "--no-renames", "--name-status", tree, commit]));
    const changes: FileChange[] = [];
    for (let i = 0; i + 1 < lines.length; i += 2) changes.push({ path: lines[i + 1]!, action: lines[i] === "D" ? "remove" : "restore" });
    return changes;
  };

  return {
    async record(prefix, message) {
      const leftOut = await stage();
      const tree = (await git(["write-tree"])).trim();
      const body = leftOut.length ? `${message}\n\nleft out (over ${MAX_FILE_BYTES} bytes):\n${leftOut.join("\n")}\n` : `${message}\n`;
      const commit = (await git(["commit-tree", tree], body)).trim();
      await git(["update-ref", `refs/hel/${prefix}${commit}`, commit]);
      return { commit, leftOut };
    },
    differences,
    async restore(commit) {
      const changes = await differences(commit);
      const restore = changes.filter((c) => c.action === "restore").map((c) => c.path);
      const remove = changes.filter((c) => c.action === "remove").map((c) => c.path);
      for (const path of remove) {
        await rm(join(projectDir, path), { force: true });
        // Folders the removed files alone made go too; a folder with anything else in it stays.
        for (let dir = dirname(path); dir !== "."; dir = dirname(dir)) {
          if (!(await rmdir(join(projectDir, dir)).then(() => true, () => false))) break;
        }
      }
      if (restore.length > 0) {
        // A path where the checkpoint has a file but the tree now has a folder (or the reverse) is cleared first.
        for (const path of restore) {
          const stat = await lstat(join(projectDir, path)).catch(() => null);
          if (stat?.isDirectory()) await rm(join(projectDir, path), { recursive: true, force: true });
        }
        await git(["checkout", "--no-overlay", commit, "--pathspec-from-file=-", "--pathspec-file-nul"], restore.join("\0") + "\0");
      }
      return changes;
    },
    async prune(prefix, keep) {
      const refs = (await git(["for-each-ref", "--format=%(refname)", `refs/hel/${prefix}`])).split("\n").filter(Boolean);
      const drop = refs.filter((ref) => !keep.has(ref.slice(`refs/hel/${prefix}`.length)));
      if (drop.length === 0) return;
      await git(["update-ref", "--stdin"], drop.map((ref) => `delete ${ref}\n`).join(""));
      await git(["reflog", "expire", "--expire=now", "--all"]);
      await git(["gc", "--quiet", "--prune=now"]);
    },
    async fileAt(commit, path) {
      return git(["cat-file", "blob", `${commit}:${path}`]).catch(() => null);
    },
    async changedBetween(from, to) {
      return nulSplit(await git(["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to]));
    },
    async keep(prefix, commits) {
      await git(["update-ref", "--stdin"], commits.map((commit) => `update refs/hel/${prefix}${commit} ${commit}\n`).join(""));
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

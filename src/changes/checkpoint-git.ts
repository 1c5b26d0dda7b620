// The git that hel runs on its checkpoint store, and where that store lives. The store is hel's own:
// `<state folder>/checkpoints/<key>/`, keyed by the project's real path and identity (device and inode
// of its root), mode 700, so neither a clone nor a sandboxed command can plant config, attributes or
// hooks in it. git obeys hel only: no system, global or repository-local config but the store's own,
// no hooks, no fsmonitor, literal pathspecs, and attributes neutralised by the store's info/attributes
// (which outranks any `.gitattributes` of the project), so no filter, textconv or encoding runs.
// Operations on a store are serialised by hel's own lock, whose holder is a live process (its pid and
// start time, so a reused pid is not taken for it); a git `index.lock` found while hel holds that lock
// and no git process works on the store is stale.
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { link, lstat, mkdir, readFile, readdir, readlink, realpath, rename, stat, unlink, writeFile } from "node:fs/promises";
import { delimiter, isAbsolute, join, relative } from "node:path";
import { ensureStateDir, userStateDir } from "../fs/state-dir.js";

export class CheckpointError extends Error {}

/** What no `.gitattributes` of the project may change for hel's git: no program runs, bytes go in as they are. */
const ATTRIBUTES = "* -filter -diff -merge -text -ident !eol !working-tree-encoding -export-subst\n";

const SETTINGS = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.attributesFile=/dev/null",
  "core.excludesFile=/dev/null",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.quotePath=false",
  "core.symlinks=true",
  "core.untrackedCache=false",
  "gc.auto=0",
  "commit.gpgSign=false",
  "user.name=hel",
  "user.email=hel@localhost",
  "advice.addEmbeddedRepo=false",
].flatMap((setting) => ["-c", setting]);

export interface GitCall {
  input?: string;
  /** Run without a work tree (`init`, which would otherwise record the project's path in the config). */
  bare?: boolean;
  /** Another work tree (a nested repository's) and index than the project's. */
  workTree?: string;
  index?: string;
  /** Another object database than the store's own (a repository's whose objects hel reads and adds to). */
  objects?: string;
  /** Find the repository from the work tree as git does (no GIT_DIR, work tree or index given). */
  discover?: boolean;
  /** Exit codes besides 0 whose output is the answer (`merge-tree` says 1 for a conflict). */
  exitCodes?: readonly number[];
  /** More settings, after hel's own, so that they win (`key=value`). */
  config?: readonly string[];
  signal?: AbortSignal;
}

export type Git = {
  (args: readonly string[], call?: GitCall): Promise<string>;
  buffer(args: readonly string[], input: string, call?: GitCall): Promise<Buffer>;
};

/** git, pointed at hel's store with the project as its work tree, and nothing else to read. */
export function gitFor(projectDir: string, gitDir: string): Git {
  // git is looked up through absolute PATH entries outside the project only: a relative entry (".")
  // would find a `git` the project holds, as git runs in the project.
  const path = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir) && relative(projectDir, dir).startsWith(".."))
    .join(delimiter);
  const envFor = (call: GitCall): NodeJS.ProcessEnv => ({
    PATH: path,
    HOME: gitDir,
    XDG_CONFIG_HOME: gitDir,
    ...(call.discover
      ? {}
      : {
          GIT_DIR: gitDir,
          ...(call.bare ? {} : { GIT_WORK_TREE: call.workTree ?? projectDir }),
          GIT_INDEX_FILE: call.index ?? join(gitDir, "index"),
        }),
    ...(call.objects ? { GIT_OBJECT_DIRECTORY: call.objects } : {}),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    LC_ALL: "C",
  });
  const run = <T extends string | Buffer>(args: readonly string[], call: GitCall, encoding: "utf8" | "buffer") =>
    new Promise<T>((resolve, reject) => {
      const child = execFile(
        "git",
        [...SETTINGS, ...(call.config ?? []).flatMap((setting) => ["-c", setting]), "--literal-pathspecs", ...args],
        { cwd: call.bare ? gitDir : (call.workTree ?? projectDir), env: envFor(call), maxBuffer: 256 * 1024 * 1024, encoding, ...(call.signal ? { signal: call.signal } : {}) },
        (error, stdout, stderr) => {
          if (error && !call.exitCodes?.includes(Number(error.code))) reject(new CheckpointError(`git ${args[0]} failed: ${(String(stderr) || error.message).trim().split("\n")[0]}`));
          else resolve(stdout as T);
        },
      );
      // A git that exits without reading its input (an error, `cat-file` with nothing asked) closes the pipe.
      child.stdin?.on("error", () => undefined);
      if (call.input !== undefined) child.stdin?.end(call.input);
    });
  const git = ((args: readonly string[], call: GitCall = {}) => run<string>(args, call, "utf8")) as Git;
  git.buffer = (args, input, call = {}) => run<Buffer>(args, { ...call, input }, "buffer");
  return git;
}

/** The store's folder for a project: its key is the hash of the root's real path, device and inode. */
export async function checkpointDir(projectDir: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return join(userStateDir(env), "checkpoints", await projectKey(projectDir));
}

/** A project's key in hel's state folder: the hash of its root's real path, device and inode. */
export async function projectKey(projectDir: string): Promise<string> {
  const real = await realpath(projectDir);
  const info = await stat(real);
  return createHash("sha256").update(`${real}\0${info.dev}\0${info.ino}`).digest("hex").slice(0, 32);
}

/** Makes a folder of hel's own (mode 700) and checks it is a real directory, not a link. */
export async function ownFolder(dir: string): Promise<void> {
  await mkdir(dir, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== "EEXIST") throw e;
  });
  const info = await lstat(dir);
  if (info.isSymbolicLink() || !info.isDirectory()) throw new CheckpointError(`${dir} is not a directory of hel's; remove it and hel makes it anew`);
}

/** The store of a project, made (`git init --bare`) when missing; null when missing and not `create`. */
export async function openStoreDir(projectDir: string, env: NodeJS.ProcessEnv, create: boolean): Promise<string | null> {
  const gitDir = await checkpointDir(projectDir, env);
  const made = await lstat(join(gitDir, "HEAD")).then(
    () => true,
    () => false,
  );
  if (!made && !create) return null;
  await ensureStateDir(env);
  await ownFolder(join(gitDir, ".."));
  await ownFolder(gitDir);
  if (!made) await gitFor(projectDir, gitDir)(["init", "--quiet", "--bare"], { bare: true });
  await mkdir(join(gitDir, "info"), { recursive: true, mode: 0o700 });
  await writeFile(join(gitDir, "info", "attributes"), ATTRIBUTES);
  return gitDir;
}

const LOCK = "hel.lock";

/** When process `pid` started (clock ticks since boot, from /proc); null where /proc does not say. */
async function startOf(pid: number): Promise<string | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  return stat ? (stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null) : null;
}

/** Whether the holder a lock names ("<pid> <start>") still runs: the same pid started at the same time. */
async function holderAlive(text: string): Promise<boolean> {
  const [pid, start] = text.split(" ");
  if (!(Number(pid) > 0)) return false;
  try {
    process.kill(Number(pid), 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // A pid reused by another process since (common in a container) is not the holder.
  const now = start ? await startOf(Number(pid)) : null;
  return now === null || now === start;
}

/**
 * Runs `work` holding the store's lock: a file naming the holder's pid, linked into place whole. A lock
 * whose holder is gone is taken over. Waits for a live holder (another hel checkpointing the project).
 */
export async function withStoreLock<T>(gitDir: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const lock = join(gitDir, LOCK);
  const mine = `${lock}.${process.pid}-${randomBytes(4).toString("hex")}`;
  await writeFile(mine, `${process.pid} ${(await startOf(process.pid)) ?? ""}`);
  try {
    for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
      signal?.throwIfAborted();
      const taken = await link(mine, lock).then(
        () => true,
        (e: NodeJS.ErrnoException) => {
          if (e.code !== "EEXIST") throw e;
          return false;
        },
      );
      if (taken) break;
      const holder = await readFile(lock, "utf8").catch(() => null);
      if (holder !== null && !(await holderAlive(holder))) {
        // Taken aside under a name of our own first, so that two processes never both remove a fresh lock.
        const aside = `${mine}.stale`;
        await rename(lock, aside).catch(() => undefined);
        const moved = await readFile(aside, "utf8").catch(() => null);
        if (moved !== null && moved !== holder) await rename(aside, lock).catch(() => undefined);
        else await unlink(aside).catch(() => undefined);
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  } finally {
    await unlink(mine).catch(() => undefined);
  }
  try {
    await clearStaleIndexLock(gitDir);
    return await work();
  } finally {
    await unlink(lock).catch(() => undefined);
  }
}

/**
 * git's own `index.lock`, left by a git killed with its hel: removed once no process works on the
 * store. Under hel's lock only hel's git could hold it, and each such git names the store in its
 * environment (GIT_DIR), which /proc shows; where /proc is missing, a lock older than a minute is stale.
 */
async function clearStaleIndexLock(gitDir: string): Promise<void> {
  const indexLock = join(gitDir, "index.lock");
  for (let tries = 0; ; tries++) {
    const info = await lstat(indexLock).catch(() => null);
    if (!info) return;
    const busy = process.platform === "linux" ? await gitWorksOn(gitDir) : Date.now() - info.mtimeMs < 60_000;
    if (!busy) {
      await unlink(indexLock).catch(() => undefined);
      return;
    }
    if (tries >= 600) return; // a minute: git then says the index is locked, and the checkpoint is skipped with a warning
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function gitWorksOn(gitDir: string): Promise<boolean> {
  const needle = Buffer.from(`\0GIT_DIR=${gitDir}\0`);
  for (const pid of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const exe = await readlink(`/proc/${pid}/exe`).catch(() => "");
    if (!/git/.test(exe)) continue;
    const environ = await readFile(`/proc/${pid}/environ`).catch(() => null);
    if (environ && Buffer.concat([Buffer.from([0]), environ]).includes(needle)) return true;
  }
  return false;
}

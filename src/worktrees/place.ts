// Where a project's worktrees are kept and the two gits that work on them, both under the git guard
// (changes/checkpoint-git.ts: no hooks, no fsmonitor, no global or system config, literal pathspecs).
// - `project`: git on the project's own repository, for what only it can do (make, lock, remove and
//   prune worktrees, move and delete `hel/` branches, read HEAD). Its config is read, so the settings that
//   would make these commands run a program are overridden, and none of them reads or writes file content.
// - `own`: git on hel's own store in its state folder (`<state>/worktrees/<key>/git`), which uses the
//   project's object database but none of its config or attributes: everything that reads or writes file
//   content (snapshots, checkouts, merges, diffs) runs here, so no filter, textconv or merge driver the
//   project names can run. The store's info/exclude leaves out `.hel/`; the project's info/exclude still
//   says what is ignored, as its `.gitignore` files do.
import { copyFile, mkdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { randomBytes, createHash } from "node:crypto";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { gitFor, ownFolder, projectKey, type GitCall } from "../changes/checkpoint-git.js";
import { ensureStateDir, userStateDir } from "../fs/state-dir.js";
import { WorktreeError, type FileChange } from "./types.js";

/** Attributes that let no program run; merges and diffs stay git's own (no `-merge`, no `-diff`). */
const ATTRIBUTES = "* -filter -text -ident !eol !working-tree-encoding -export-subst\n";

type Run = (args: readonly string[], call?: GitCall) => Promise<string>;

export interface Place {
  /** The project's top folder (its real path). */
  top: string;
  /** The project repository's git directory for its main work tree, and its common directory. */
  gitDir: string;
  commonDir: string;
  format: "sha1" | "sha256";
  /** hel's folder for this project's worktrees in its state folder: records, journal, store, lock. */
  stateDir: string;
  project: Run;
  own: Run;
  ownBuffer: (args: readonly string[], call?: GitCall) => Promise<Buffer>;
}

/** The project's repository and hel's store for it; throws WorktreeError without git or a repository. */
export async function openPlace(projectDir: string, env: NodeJS.ProcessEnv = process.env): Promise<Place> {
  const top = await realpath(projectDir);
  const stateDir = await stateDirOf(top, env);
  const found = await repositoryOf(top, stateDir);
  const [shown, gitDir, commonDir, format] = found.split("\n");
  if (!shown || !gitDir || !commonDir) throw new WorktreeError(`git did not say where the repository of ${top} is`, "git");
  if ((await realpath(shown)) !== top) throw new WorktreeError(`${top} is a folder inside the repository at ${shown}: start hel in ${shown} to use worktrees`, "subfolder");
  await ensureStateDir(env);
  await ownFolder(join(stateDir, ".."));
  await ownFolder(stateDir);
  const store = join(stateDir, "git");
  const objectFormat = format === "sha256" ? "sha256" : "sha1";
  await makeStore(top, store, objectFormat);
  const projectGit = gitFor(top, gitDir);
  const ownGit = gitFor(top, store);
  const ownCall = (call: GitCall = {}): GitCall => ({ objects: join(commonDir, "objects"), config: [`core.excludesFile=${join(commonDir, "info", "exclude")}`], ...call });
  return {
    top,
    gitDir,
    commonDir,
    format: objectFormat,
    stateDir,
    project: (args, call) => projectGit(args, call),
    own: (args, call) => ownGit(args, ownCall(call)),
    ownBuffer: (args, call) => ownGit.buffer(args, "", ownCall(call)),
  };
}

/** Where each project's repository is, once found: every call of the engine opens its place, and the answer does not change. */
const repositories = new Map<string, Promise<string>>();

/** git's answer to where the repository of `top` is; asked before anything is made: without git or a repository, nothing is. */
function repositoryOf(top: string, stateDir: string): Promise<string> {
  const key = `${top}\0${stateDir}`;
  let found = repositories.get(key);
  if (found === undefined) {
    found = gitFor(top, stateDir)(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir", "--show-object-format"], { discover: true }).catch((e: Error) => {
      repositories.delete(key);
      if (/ENOENT/.test(e.message)) throw new WorktreeError("git is not installed (or not on PATH): worktrees need git", "no-git");
      if (/not a git repository/i.test(e.message)) throw new WorktreeError(`${top} is not in a git repository: worktrees need one (git init, then commit)`, "not-a-repository");
      throw new WorktreeError(oneLineOf(e), "git");
    });
    repositories.set(key, found);
  }
  return found;
}

/** Stores this process is making, by folder: worktrees made at once on a project's first use share one making. */
const making = new Map<string, Promise<void>>();

/**
 * Makes hel's store when missing, safe to run at once in several processes: it is made whole in a
 * folder of this process's own and renamed into place, so no process sees half a store; of two made at
 * once one wins the rename and the other's is dropped. A kill midway leaves only that process's folder.
 */
function makeStore(top: string, store: string, format: string): Promise<void> {
  let made = making.get(store);
  if (made === undefined) {
    made = openStore(top, store, format).finally(() => making.delete(store));
    making.set(store, made);
  }
  return made;
}

async function openStore(top: string, store: string, format: string): Promise<void> {
  if (!(await isStore(store))) {
    const temp = `${store}.new-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      await ownFolder(temp);
      await gitFor(top, temp)(["init", "--quiet", "--bare", `--object-format=${format}`], { bare: true });
      await writeInfo(temp);
      // Onto a missing or empty folder only: a store another process renamed first stays, and is used.
      await rename(temp, store).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== "ENOTEMPTY" && e.code !== "EEXIST") throw e;
      });
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  }
  await ownFolder(store);
  if (!(await isStore(store))) throw new WorktreeError(`${store} is not a store of hel's (no HEAD): remove it and hel makes it anew`, "git");
  // A store made by an older hel may lack these, or hold other attributes.
  await writeInfo(store);
}

const isStore = (store: string): Promise<boolean> =>
  readFile(join(store, "HEAD")).then(
    () => true,
    () => false,
  );

/** The store's attributes and excludes, each replaced whole (written aside, renamed) when it differs. */
async function writeInfo(store: string): Promise<void> {
  await mkdir(join(store, "info"), { recursive: true, mode: 0o700 });
  for (const [name, text] of [
    ["attributes", ATTRIBUTES],
    ["exclude", "/.hel/\n"],
  ] as const) {
    const file = join(store, "info", name);
    if ((await readFile(file, "utf8").catch(() => null)) === text) continue;
    const aside = `${file}.${process.pid}-${randomBytes(4).toString("hex")}`;
    await writeFile(aside, text);
    await rename(aside, file);
  }
}

/** hel's folder for a project's worktrees in its state folder; nothing is made. */
export async function stateDirOf(projectDir: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return join(userStateDir(env), "worktrees", await projectKey(projectDir));
}

function oneLineOf(e: Error): string {
  return e.message.split("\n")[0] ?? "git failed";
}

/** The object id of `ref` (a commit), or null when it names none (an unborn HEAD, a missing branch). */
export async function commitOf(place: Place, ref: string): Promise<string | null> {
  return place.project(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { exitCodes: [1] }).then((out) => out.trim() || null);
}

/** A branch's commit and its tree (`fallback`'s when the branch is missing), asked of git at once. */
export async function tipOf(place: Place, branch: string, fallback: string): Promise<{ commit: string; tree: string }> {
  const ask = async (ref: string) => {
    const [commit, tree] = (await place.project(["rev-parse", `${ref}^{commit}`, `${ref}^{tree}`])).trim().split("\n");
    return { commit: commit!, tree: tree! };
  };
  return ask(`refs/heads/${branch}`).catch(() => ask(fallback));
}

/**
 * A commit of `workTree` as it is now, tracked changes and untracked files that are not ignored
 * included, on top of `parent` (none: a root commit); `parent` itself when its tree, `parentTree`, is
 * the same. The index seeded from `seedIndex` (copied, never written) makes git hash only what changed
 * since it; the copy is kept at `keepIndex` when given.
 */
export async function snapshot(place: Place, workTree: string, seedIndex: string, parent: string | null, keepIndex?: string, parentTree?: string): Promise<{ commit: string; tree: string }> {
  const index = join(place.stateDir, `index-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    // The copy keeps the index's time: git trusts a file's stat data only when the file is older than
    // its index, so a copy timed now would hide an edit made within the index's last second.
    const seeded = await copyFile(seedIndex, index).then(
      async () => {
        const { atime, mtime } = await stat(seedIndex);
        await utimes(index, atime, mtime);
        return true;
      },
      () => false,
    );
    const add = () => place.own(["add", "--all", "--", "."], { workTree, index });
    if (seeded) {
      // An index git wrote in a form hel's store cannot read (a split index): hash from the parent instead.
      await add().catch(async () => {
        await rm(index, { force: true });
        if (parent) await place.own(["read-tree", parent], { workTree, index });
        await add();
      });
    } else {
      if (parent) await place.own(["read-tree", parent], { workTree, index });
      await add();
    }
    const tree = (await place.own(["write-tree"], { workTree, index })).trim();
    // Nothing changed since `parent`: it is the snapshot, and no commit is made.
    const commit = parent !== null && tree === parentTree ? parent : (await place.own(["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-m", "hel: snapshot"], { workTree, index })).trim();
    if (keepIndex) await rename(index, keepIndex);
    return { commit, tree };
  } finally {
    await rm(index, { force: true });
  }
}

/** Each file that differs between two commits or trees, with its added and removed lines. */
export async function changedFiles(place: Place, from: string, to: string): Promise<FileChange[]> {
  const out = await place.own(["diff-tree", "-r", "-z", "--no-renames", "--numstat", from, to]);
  const fields = out.split("\0");
  const files: FileChange[] = [];
  for (let i = 0; i + 1 < fields.length; i++) {
    const [added, removed, path] = fields[i]!.split("\t");
    if (path === undefined) continue;
    const binary = added === "-";
    files.push({ path, added: binary ? 0 : Number(added), removed: binary ? 0 : Number(removed), ...(binary ? { binary } : {}) });
  }
  return files;
}

/** The bytes of a blob. */
export function blobOf(place: Place, oid: string): Promise<Buffer> {
  return place.ownBuffer(["cat-file", "blob", oid]);
}

/** The object id git gives these bytes as a blob. */
export function blobId(place: Place, data: Buffer): string {
  return createHash(place.format).update(`blob ${data.length}\0`).update(data).digest("hex");
}

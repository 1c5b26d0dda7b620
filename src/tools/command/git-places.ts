// Where the repositories in a project keep what makes git run programs, and what is there now. A
// repository is found by its `.git` entry anywhere in the project (a directory, or a file or symlink
// pointing at the git directory, as linked worktrees and submodules have), besides the git directories
// of submodules (`.git/modules/…`) and of linked worktrees (`.git/worktrees/…`), and those that `.git`
// files and symlinks lead to inside the project. `node_modules` and hel's own `.hel/` are not walked,
// and the walk stops after MAX_DIRS directories, so that a command in a huge tree does not wait on it. Of each git directory the state kept is its `config`,
// `config.worktree`, `commondir` (which redirects git to another git directory) and the hooks in
// `hooks` (sample hooks never run and are left out); of each `.git` file or symlink, its content.
// Nothing follows a symlink: a link is kept as its target text.
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, type Dirent } from "node:fs";
import path from "node:path";
import { isInside } from "../paths.js";

export type Entry = { kind: "none" } | { kind: "file"; content: Buffer; mode: number } | { kind: "link"; target: string } | { kind: "dir"; entries: ReadonlyMap<string, Entry> } | { kind: "other" };

const GIT_DIR_ITEMS = ["config", "config.worktree", "commondir", "hooks"] as const;

export interface GitState {
  /** Git directories by path, each with its items. */
  gitDirs: Map<string, Map<string, Entry>>;
  /** `.git` files and symlinks by path. */
  pointers: Map<string, Entry>;
}

const SKIPPED = new Set(["node_modules"]);
const MAX_DIRS = 50_000;
/** Inside a git directory, the directories that hold no git directory. */
const GIT_DATA = new Set(["objects", "refs", "logs", "hooks", "info", "lfs", "rr-cache"]);

export function gitState(projectDir: string): GitState {
  const state: GitState = { gitDirs: new Map(), pointers: new Map() };
  const stack = [projectDir];
  for (let walked = 0; stack.length > 0 && walked < MAX_DIRS; walked++) {
    const dir = stack.pop()!;
    for (const entry of list(dir)) {
      const p = path.join(dir, entry.name);
      if (entry.name === ".git") {
        if (entry.isDirectory()) addGitDir(state, p);
        else state.pointers.set(p, entryAt(p, false));
      } else if (entry.isDirectory() && !SKIPPED.has(entry.name) && !(dir === projectDir && entry.name === ".hel")) stack.push(p);
    }
  }
  for (const [p, entry] of state.pointers) {
    const target = pointerTarget(p, entry);
    if (target !== null && isInside(projectDir, target) && isRealDir(target)) addGitDir(state, target);
  }
  return state;
}

/** Where a `.git` file (`gitdir: …`) or symlink leads, as a real path; null when nowhere. */
function pointerTarget(p: string, entry: Entry): string | null {
  let target: string | null = null;
  if (entry.kind === "link") target = path.resolve(path.dirname(p), entry.target);
  else if (entry.kind === "file") {
    const match = /^gitdir: (.+)$/m.exec(entry.content.toString("utf8"));
    if (match) target = path.resolve(path.dirname(p), match[1]!.trim());
  }
  return target === null ? null : realOrSelf(target);
}

/** A directory whose path is its real path: no component of it was replaced by a symlink. */
export function isRealDir(p: string): boolean {
  return lstatSync(p, { throwIfNoEntry: false })?.isDirectory() === true && realOrSelf(p) === p;
}

export function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** A git directory's items, and those of the git directories kept inside it. */
function addGitDir(state: GitState, gitDir: string): void {
  if (state.gitDirs.has(gitDir)) return;
  state.gitDirs.set(gitDir, gitDirItems(gitDir));
  for (const holder of ["modules", "worktrees"]) {
    const stack = [path.join(gitDir, holder)];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      const entries = list(dir);
      if (entries.some((e) => e.name === "HEAD" && e.isFile())) addGitDir(state, dir);
      for (const e of entries) if (e.isDirectory() && !GIT_DATA.has(e.name) && e.name !== "modules") stack.push(path.join(dir, e.name));
    }
  }
}

export function gitDirItems(gitDir: string): Map<string, Entry> {
  return new Map(GIT_DIR_ITEMS.map((item) => [item, entryAt(path.join(gitDir, item), item === "hooks")]));
}

function list(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** What is at `p`; for a hooks directory, its hooks (one level: git runs `hooks/<name>` only). */
export function entryAt(p: string, hooks: boolean): Entry {
  const info = lstatSync(p, { throwIfNoEntry: false });
  if (info === undefined) return { kind: "none" };
  try {
    if (info.isSymbolicLink()) return { kind: "link", target: readlinkSync(p) };
    if (info.isFile()) return { kind: "file", content: readFileSync(p), mode: info.mode & 0o7777 };
    if (info.isDirectory() && hooks) {
      const entries = new Map<string, Entry>();
      for (const e of list(p)) if (!e.name.endsWith(".sample")) entries.set(e.name, entryAt(path.join(p, e.name), false));
      return { kind: "dir", entries };
    }
  } catch {
    // Gone or unreadable between the lstat and the read: counted as something else than it was.
  }
  return { kind: "other" };
}

export function sameEntry(a: Entry, b: Entry): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "file":
      return b.kind === "file" && a.mode === b.mode && a.content.equals(b.content);
    case "link":
      return b.kind === "link" && a.target === b.target;
    case "dir": {
      if (b.kind !== "dir" || a.entries.size !== b.entries.size) return false;
      for (const [name, entry] of a.entries) {
        const other = b.entries.get(name);
        if (other === undefined || !sameEntry(entry, other)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

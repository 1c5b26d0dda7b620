// Git stays the user's: a command under --access edit may change what makes git run programs in any
// repository of the project (config, hooks, the `.git` pointers of worktrees and submodules, a
// `commondir`), and the user's next `git status` or `git commit` would run it outside the sandbox. So
// the state is taken before the command and put back after it; a git directory that appeared meanwhile
// (a new repository, or one a new `.git` pointer leads to) keeps only the settings that run nothing,
// loses its hooks, and a `commondir` that leads to no known git directory. What was put back is
// returned as project-relative lines for the command's result. Nothing written follows a symlink:
// what is replaced is removed first, and a git directory whose path no longer leads to itself is left.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isInside } from "../paths.js";
import { findSystemProgram } from "./find-program.js";
import { entryAt, gitDirItems, gitState, isRealDir, realOrSelf, sameEntry, type Entry, type GitState } from "./git-places.js";

/** Takes the state now; the function returned puts it back and says what it changed. */
export function guardGit(projectDir: string): () => string[] {
  const before = gitState(projectDir);
  return () => putBack(projectDir, before);
}

function putBack(projectDir: string, before: GitState): string[] {
  const after = gitState(projectDir);
  const known = new Set([...before.gitDirs.keys(), ...after.gitDirs.keys()]);
  const notes: string[] = [];
  const rel = (p: string) => path.relative(projectDir, p);
  // One failure (a file made read-only, a directory gone meanwhile) is said, and the rest still done.
  const attempt = (p: string, work: () => string[]) => {
    try {
      notes.push(...work());
    } catch (e) {
      notes.push(`${rel(p)} could not be put back (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): check it before running git there`);
    }
  };
  for (const [gitDir, items] of before.gitDirs) {
    if (!isRealDir(gitDir)) continue;
    const now = after.gitDirs.get(gitDir) ?? gitDirItems(gitDir);
    for (const [item, was] of items) {
      const p = path.join(gitDir, item);
      const there = now.get(item) ?? { kind: "none" };
      if (!sameEntry(was, there)) attempt(p, () => (restore(p, was, there) ? [`${rel(p)} put back`] : []));
    }
  }
  for (const [p, was] of before.pointers) {
    const now = after.pointers.get(p) ?? entryAt(p, false);
    if (!sameEntry(was, now) && isRealDir(path.dirname(p))) attempt(p, () => (restore(p, was, now) ? [`${rel(p)} put back`] : []));
  }
  for (const [gitDir, items] of after.gitDirs) {
    if (!before.gitDirs.has(gitDir) && isRealDir(gitDir)) attempt(gitDir, () => sanitize(projectDir, gitDir, items, known).map((note) => `${rel(gitDir)}/${note}`));
  }
  return notes;
}

/** Puts `was` back at `p`, where `now` is; false when it cannot be (it was neither a file, a link nor hooks). */
function restore(p: string, was: Entry, now: Entry): boolean {
  if (was.kind === "dir" && now.kind === "dir" && isRealDir(p)) {
    for (const name of now.entries.keys()) if (!was.entries.has(name)) rmSync(path.join(p, name), { recursive: true, force: true });
    for (const [name, entry] of was.entries) {
      const there = now.entries.get(name) ?? { kind: "none" };
      if (!sameEntry(entry, there)) write(path.join(p, name), entry);
    }
    return true;
  }
  if (was.kind === "other") return false;
  rmSync(p, { recursive: true, force: true });
  write(p, was);
  return true;
}

function write(p: string, entry: Entry): void {
  rmSync(p, { recursive: true, force: true });
  if (entry.kind === "file") {
    writeFileSync(p, entry.content, { flag: "wx" });
    chmodSync(p, entry.mode);
  } else if (entry.kind === "link") symlinkSync(entry.target, p);
  else if (entry.kind === "dir") {
    mkdirSync(p);
    for (const [name, inner] of entry.entries) write(path.join(p, name), inner);
  }
}

/** A git directory the command made or pointed to: what of it could make git run something goes. */
function sanitize(projectDir: string, gitDir: string, items: ReadonlyMap<string, Entry>, known: ReadonlySet<string>): string[] {
  const notes: string[] = [];
  for (const [item, entry] of items) {
    const p = path.join(gitDir, item);
    if (entry.kind === "none") continue;
    if (item === "hooks") {
      if (entry.kind === "dir" && isRealDir(p)) {
        for (const name of entry.entries.keys()) {
          rmSync(path.join(p, name), { recursive: true, force: true });
          notes.push(`hooks/${name} removed`);
        }
      } else {
        rmSync(p, { recursive: true, force: true });
        notes.push("hooks removed");
      }
    } else if (item === "commondir") {
      const target = entry.kind === "file" ? path.resolve(gitDir, entry.content.toString("utf8").trim()) : null;
      if (target === null || (isInside(projectDir, realOrSelf(target)) && !known.has(realOrSelf(target)))) {
        rmSync(p, { recursive: true, force: true });
        notes.push("commondir removed");
      }
    } else if (entry.kind !== "file") {
      rmSync(p, { recursive: true, force: true });
      notes.push(`${item} removed`);
    } else {
      const text = entry.content.toString("utf8");
      const kept = safeConfig(projectDir, p, text);
      if (kept !== text) {
        write(p, { kind: "file", content: Buffer.from(kept), mode: entry.mode });
        notes.push(`${item}: settings that run programs removed`);
      }
    }
  }
  return notes;
}

/** Keys of a repository's config that make git run nothing: format, remotes, branches, identity. */
const SAFE_KEYS = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|worktree|sharedrepository)$/,
  /^extensions\.(objectformat|refstorage|worktreeconfig|preciousobjects|partialclone)$/,
  /^remote\..+\.(url|pushurl|fetch|push|tagopt|mirror|promisor|partialclonefilter)$/,
  /^branch\..+\.(remote|merge|rebase|pushremote)$/,
  /^submodule\..+\.(url|active|branch)$/,
  /^user\.(name|email)$/,
];

/**
 * The config `text` of `file` with only its safe keys, read by git itself (so that it is read as git
 * reads it, includes not followed) and written anew; `text` itself when every key is safe; empty when
 * git cannot read it.
 */
function safeConfig(projectDir: string, file: string, text: string): string {
  const git = findSystemProgram("git", process.env, projectDir);
  if (git === null) return "";
  const env = { PATH: process.env.PATH ?? "", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: "/nonexistent" };
  const listed = spawnSync(git, ["config", "--file", file, "--list", "-z"], { env, encoding: "utf8", timeout: 10_000 });
  if (listed.status !== 0) return "";
  const pairs = listed.stdout
    .split("\0")
    .filter((s) => s !== "")
    .map((s) => {
      const nl = s.indexOf("\n");
      return nl === -1 ? { key: s, value: null } : { key: s.slice(0, nl), value: s.slice(nl + 1) };
    });
  const safe = pairs.filter(({ key }) => SAFE_KEYS.some((re) => re.test(key)));
  if (safe.length === pairs.length) return text;
  const lines: string[] = [];
  let section = "";
  for (const { key, value } of safe) {
    const first = key.indexOf(".");
    const last = key.lastIndexOf(".");
    const header = first === last ? `[${key.slice(0, first)}]` : `[${key.slice(0, first)} ${quote(key.slice(first + 1, last))}]`;
    if (header !== section) lines.push((section = header));
    lines.push(`\t${key.slice(last + 1)}${value === null ? "" : ` = ${quote(value)}`}`);
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

function quote(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t")}"`;
}

// What the sandbox keeps read-only but cannot pin by a mount alone is checked after the command: a
// place that did not exist (a `.hel` made in a subfolder, a missing `~/.bashrc` in a writable home)
// cannot be mounted over without creating it on the host, and a mounted one can still be moved aside
// with its parent folder and something new put in its place. So the identity (device and inode) of each
// such place is taken before the command; after it, whatever stands at one of them that was not there
// before is removed, and a symbolic link that was is made again. A `.hel` the command only moved keeps
// its inode and is left where it went: it holds what hel wrote, not what the command did. Nothing is
// removed through a symlink: a place whose folder no longer leads to itself is left and said.
import { lstatSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { isRealDir } from "./git-places.js";
import { nestedHelDirs } from "./kept-places.js";

type Identity = { kind: "none" } | { kind: "link"; target: string; id: string } | { kind: "other"; id: string };

function identityOf(p: string): Identity {
  const info = lstatSync(p, { throwIfNoEntry: false, bigint: true });
  if (info === undefined) return { kind: "none" };
  const id = `${info.dev}:${info.ino}`;
  if (info.isSymbolicLink()) {
    try {
      return { kind: "link", target: readlinkSync(p), id };
    } catch {
      return { kind: "other", id };
    }
  }
  return { kind: "other", id };
}

/** The same entry: an inode freed by a removal may be given to what is made next, so a link is also its kind and target. */
function sameIdentity(a: Identity, b: Identity): boolean {
  if (a.kind === "none" || b.kind === "none") return a.kind === b.kind;
  return a.kind === b.kind && a.id === b.id && (a.kind !== "link" || a.target === (b as typeof a).target);
}

/**
 * Takes the state of `places` (paths the command may reach but must not change) and of the project's
 * nested `.hel` folders (`helDirs`, found just before); the function returned undoes what changed and
 * says so, project-relative.
 */
export function guardKeptPlaces(projectDir: string, places: readonly string[], helDirs: readonly string[]): () => string[] {
  const before = new Map(places.map((p) => [p, identityOf(p)]));
  const helIds = new Set(helDirs.map((p) => identityOf(p)).flatMap((i) => (i.kind === "none" ? [] : [i.id])));
  return () => {
    const notes: string[] = [];
    const rel = (p: string) => (path.relative(projectDir, p).startsWith("..") ? p : path.relative(projectDir, p));
    /** Removes what stands at `p`; false (and said) when it cannot be. */
    const remove = (p: string): boolean => {
      if (!isRealDir(path.dirname(p))) {
        notes.push(`${rel(p)} could not be removed (its folder was replaced): check it`);
        return false;
      }
      try {
        rmSync(p, { recursive: true, force: true });
        return true;
      } catch (e) {
        notes.push(`${rel(p)} could not be removed (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): check it`);
        return false;
      }
    };
    for (const p of nestedHelDirs(projectDir)) {
      const now = identityOf(p);
      if (now.kind !== "none" && !helIds.has(now.id) && remove(p)) notes.push(`${rel(p)} removed`);
    }
    for (const [p, was] of before) {
      const now = identityOf(p);
      if (now.kind === "none" ? was.kind !== "link" : sameIdentity(was, now) || !remove(p)) continue;
      if (was.kind === "link") symlinkSync(was.target, p);
      notes.push(`${rel(p)} ${was.kind === "link" ? "put back" : "removed"}`);
    }
    return notes;
  };
}

// What a sandboxed command may write, decided from the access level and the project on disk. Under
// `edit` the project is writable except hel's `.hel/` at any depth and git's hooks and config (a hook
// or a `core.hooksPath` planted there would run outside the sandbox at the user's next commit); `.git`
// itself becomes an anchor, a mount point that cannot be renamed, so the protected paths inside it
// cannot be moved aside; a `.git` file (the project is a linked worktree or a submodule) is kept as it
// is, so it cannot be pointed at a planted git directory. A grant (an allow rule, an approved
// escalation) adds the network and folders outside the project to write, never `/`, the home folder
// or one holding it or the project, the kernel's files or the hidden sockets. Over every writable place
// stay read-only the paths the caller names (the files trusted programs run, the user's config folder)
// and the user's shell start-up files; those of them that do not exist, or are symbolic links, and
// nested `.hel` folders a command makes, are undone after it (`kept`, kept-guard.ts). Paths are real
// paths; whatever lies outside the writable places is read-only anyway. At every level the host's Unix
// sockets are out of reach.
// The few lookups are synchronous: each takes microseconds, a round trip through the thread pool more.
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { isInside } from "../paths.js";
import { hostSockets, type HostSockets } from "./host-sockets.js";
import { realOrNull } from "./find-program.js";
import { nestedHelDirs, userStartupFiles } from "./kept-places.js";

export interface ProtectedPath {
  path: string;
  /** anchor: stays writable, only pinned in place; missing: kept from being created. */
  kind: "dir" | "file" | "anchor" | "missing";
}

export interface SandboxPolicy {
  /** Real path of the project directory. */
  projectDir: string;
  writable: boolean;
  network: boolean;
  /** Folders and files outside the project the command may write too (a grant), bound before the protected paths. */
  granted: string[];
  /** In mount order: an anchor comes before the paths inside it. */
  protected: ProtectedPath[];
  /** Places in the writable ones that must be as they were after the command (kept-guard.ts). */
  kept: string[];
  /** The `.hel` folders below the project's top when the policy was made (kept-guard.ts checks for new ones). */
  nestedHel: string[];
  /** The host's Unix sockets and the directories holding them, hidden from the command. */
  sockets: HostSockets;
}

export interface PolicyOptions {
  network?: boolean;
  /** Real paths outside the project the command may write (sandbox-grant.ts says which may be). */
  granted?: readonly string[];
  /** Kept read-only wherever they are: the files trusted programs run, the user's config folder. */
  readOnly?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

export function sandboxPolicy(projectDir: string, access: "read-only" | "edit", options: PolicyOptions = {}): SandboxPolicy {
  const env = options.env ?? process.env;
  const sockets = hostSockets(projectDir, env);
  if (access === "read-only") return { projectDir, writable: false, network: false, granted: [], protected: [], kept: [], nestedHel: [], sockets };
  const granted = [...(options.granted ?? [])];
  const found: ProtectedPath[] = [];
  const helPath = path.join(projectDir, ".hel");
  const hel = inside(projectDir, helPath);
  if (hel && kindOf(hel) === "dir") found.push({ path: hel, kind: "dir" });
  else if (kindOf(helPath) === null) found.push({ path: helPath, kind: "missing" });
  const git = inside(projectDir, path.join(projectDir, ".git"));
  if (git && kindOf(git) === "dir") {
    found.push({ path: git, kind: "anchor" });
    const hooks = path.join(git, "hooks");
    const hooksKind = kindOf(hooks);
    if (hooksKind === "dir" || hooksKind === null) found.push({ path: hooks, kind: hooksKind === null ? "missing" : "dir" });
    const config = path.join(git, "config");
    if (kindOf(config) === "file") found.push({ path: config, kind: "file" });
    // A symlinked hooks or config stays a link the command may replace (the git guard puts it back);
    // what it points to in the project is kept read-only here.
    for (const [link, kind] of [
      [hooks, "dir"],
      [config, "file"],
    ] as const) {
      const target = kindOf(link) === "other" ? inside(projectDir, link) : null;
      if (target !== null && kindOf(target) === kind) found.push({ path: target, kind });
    }
  } else if (git && kindOf(git) === "file") found.push({ path: git, kind: "file" });
  // Bound after the anchors: a read-only path inside `.git` must not be made writable again by one.
  const writable = (p: string) => isInside(projectDir, p) || granted.some((g) => isInside(g, p));
  const kept: string[] = [];
  const nestedHel = nestedHelDirs(projectDir);
  for (const p of [...nestedHel, ...(options.readOnly ?? []), ...userStartupFiles(env)]) {
    if (!path.isAbsolute(p)) continue;
    const place = realParent(p);
    if (!writable(place)) continue;
    if (path.basename(place) !== ".hel") kept.push(place);
    const real = realOrNull(place);
    const kind = real === null ? null : kindOf(real);
    if (real !== null && writable(real) && (kind === "dir" || kind === "file") && !found.some((f) => f.path === real)) found.push({ path: real, kind });
  }
  return { projectDir, writable: true, network: options.network ?? false, granted, protected: found, kept, nestedHel, sockets };
}

/** `p` with the real path of its nearest existing folder (a command may make the ones missing). */
function realParent(p: string): string {
  const rest = [path.basename(p)];
  for (let dir = path.dirname(p); ; dir = path.dirname(dir)) {
    const real = realOrNull(dir);
    if (real !== null || dir === path.dirname(dir)) return path.join(real ?? dir, ...rest);
    rest.unshift(path.basename(dir));
  }
}

/** The real path of `p` when it exists inside the project; null when missing or outside. */
function inside(projectDir: string, p: string): string | null {
  let real: string;
  try {
    real = realpathSync(p);
  } catch {
    return null;
  }
  return real !== projectDir && isInside(projectDir, real) ? real : null;
}

function kindOf(p: string): "dir" | "file" | "other" | null {
  const info = lstatSync(p, { throwIfNoEntry: false });
  if (info === undefined) return null;
  return info.isDirectory() ? "dir" : info.isFile() ? "file" : "other";
}

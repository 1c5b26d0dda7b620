// What a sandboxed command may write, decided from the access level and the project on disk. Under
// `edit` the project is writable except hel's `.hel/` and git's hooks and config (a hook or a
// `core.hooksPath` planted there would run outside the sandbox at the user's next commit); `.git`
// itself becomes an anchor, a mount point that cannot be renamed, so the protected paths inside it
// cannot be moved aside; a `.git` file (the project is a linked worktree or a submodule) is kept as it
// is, so it cannot be pointed at a planted git directory. Paths are real paths; whatever lies outside
// the project is read-only anyway. At every level the host's Unix sockets are out of reach.
// The few lookups are synchronous: each takes microseconds, a round trip through the thread pool more.
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { isInside } from "../paths.js";
import { hostSockets, type HostSockets } from "./host-sockets.js";

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
  /** In mount order: an anchor comes before the paths inside it. */
  protected: ProtectedPath[];
  /** The host's Unix sockets and the directories holding them, hidden from the command. */
  sockets: HostSockets;
}

export function sandboxPolicy(projectDir: string, access: "read-only" | "edit", network: boolean, env: NodeJS.ProcessEnv = process.env): SandboxPolicy {
  const sockets = hostSockets(projectDir, env);
  if (access === "read-only") return { projectDir, writable: false, network: false, protected: [], sockets };
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
    for (const [link, kind] of [[hooks, "dir"], [config, "file"]] as const) {
      const target = kindOf(link) === "other" ? inside(projectDir, link) : null;
      if (target !== null && kindOf(target) === kind) found.push({ path: target, kind });
    }
  } else if (git && kindOf(git) === "file") found.push({ path: git, kind: "file" });
  return { projectDir, writable: true, network, protected: found, sockets };
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

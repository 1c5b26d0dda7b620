// The Unix sockets of this machine that a sandboxed command must not reach: a socket file is
// connected to through a read-only mount just as well, so every named socket the kernel lists for
// hel's network namespace is covered in the sandbox, wherever it lies, except in the project (the
// project's own) and /tmp, /dev and /proc (the sandbox has its own). The runtime directories are hidden
// whole: sockets there may belong to daemons in other network namespaces (rootless docker) that the
// list does not show. Abstract sockets need no covering: they live in the network namespace, which
// the sandbox leaves without --network.
import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { isInside } from "../paths.js";

const OWN_IN_SANDBOX = ["/tmp", "/dev", "/proc"];

export interface HostSockets {
  /** Directories to hide under an empty tmpfs. */
  dirs: string[];
  /** Socket files to cover with /dev/null. */
  files: string[];
}

export function hostSockets(projectDir: string, env: NodeJS.ProcessEnv): HostSockets {
  const dirs = runtimeDirs(projectDir, env);
  const skip = [...OWN_IN_SANDBOX, ...dirs];
  const files = new Set<string>();
  for (const name of namedSockets()) {
    if (skip.some((dir) => isInside(dir, name)) || isInside(projectDir, name)) continue;
    // Only what is a socket at that path now: a name bound elsewhere (another mount namespace, a
    // socket since removed) has nothing to cover, and bubblewrap refuses to cover a missing path.
    if (lstatSync(name, { throwIfNoEntry: false })?.isSocket() === true) files.add(name);
  }
  return { dirs, files: [...files] };
}

function runtimeDirs(projectDir: string, env: NodeJS.ProcessEnv): string[] {
  const dirs = ["/run/user"];
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg !== undefined && path.isAbsolute(xdg) && !dirs.some((d) => isInside(d, xdg))) dirs.push(path.normalize(xdg));
  return dirs.filter((dir) => !isInside(dir, projectDir) && !isInside(projectDir, dir) && lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() === true);
}

/** Absolute paths of the named sockets in /proc/net/unix (the path is the eighth column, to the end). */
function namedSockets(): string[] {
  let table: string;
  try {
    table = readFileSync("/proc/net/unix", "utf8");
  } catch {
    return [];
  }
  const names: string[] = [];
  for (const line of table.split("\n")) {
    const match = /^\S+: \S+ \S+ \S+ \S+ \S+ \S+ (\/.*)$/.exec(line);
    if (match) names.push(path.normalize(match[1]!));
  }
  return names;
}

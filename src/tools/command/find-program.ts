// Finding programs hel starts for commands (the shell, the sandbox, the namespace tools) without
// starting anything. The programs that confine a command are taken only from the system's own
// directories: a PATH entry that leads into the project, even through a symlink, could hold a
// planted `bwrap` that confines nothing. The PATH a command itself runs with has absolute entries only.
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../paths.js";
import { pathOutside } from "../program-place.js";

/** Where a distribution installs its programs (NixOS and Guix keep theirs in the system profile). */
const SYSTEM_DIRS: ReadonlySet<string> = new Set(["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin", "/run/current-system/sw/bin", "/run/current-system/profile/bin"]);

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` in PATH's absolute directories for which `accept(dir)` holds. */
function findOnPath(name: string, env: NodeJS.ProcessEnv, accept: (dir: string) => boolean = () => true): string | null {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(dir) || !accept(dir)) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

/**
 * `name` from a PATH entry that is really one of the system's directories, as a real path that is not
 * inside `projectDir`; null when PATH reaches none.
 */
export function findSystemProgram(name: string, env: NodeJS.ProcessEnv, projectDir: string): string | null {
  const found = findOnPath(name, env, (dir) => SYSTEM_DIRS.has(realOrNull(dir) ?? ""));
  if (found === null) return null;
  const real = realOrNull(found);
  return real !== null && !isInside(projectDir, real) ? real : null;
}

export function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * The PATH a command runs with: its absolute entries only (bash looks an empty or relative one up from
 * the command's folder, in the project, where anything may have been planted). For a command given a
 * grant (an allow rule, the user's yes) also only entries outside the project, as for the user's own
 * programs: the `npm` a rule or a question names is then never a file the project holds, even through
 * a symlink, and a sandboxed command that runs with nothing granted may still use the project's own
 * tools (a venv).
 */
export function commandPath(value: string, projectDir: string, granted: boolean): string {
  if (granted) return pathOutside(value, projectDir);
  return value
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir))
    .join(path.delimiter);
}

/** bash, for the commands the model writes; sh on systems that have no bash. */
export function shellFor(env: NodeJS.ProcessEnv): string {
  if (isExecutable("/bin/bash")) return "/bin/bash";
  return findOnPath("bash", env) ?? "/bin/sh";
}

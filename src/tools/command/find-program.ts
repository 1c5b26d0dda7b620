// Finding programs hel starts for commands (the shell, the sandbox) without starting anything.
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` in PATH's absolute directories for which `accept(dir)` holds. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv, accept: (dir: string) => boolean = () => true): string | null {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(dir) || !accept(dir)) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

/** bash, for the commands the model writes; sh on systems that have no bash. */
export function shellFor(env: NodeJS.ProcessEnv): string {
  if (isExecutable("/bin/bash")) return "/bin/bash";
  return findOnPath("bash", env) ?? "/bin/sh";
}

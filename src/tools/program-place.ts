// Where the user's own programs (hooks and MCP servers) start, so that no file of the project can stand
// in for the program they name: a `PATH` of absolute folders outside the project only (a relative or
// empty entry is the working folder, which may be the project), and, for the user's own entries (from
// their config, --mcp-config or the editor), a working folder of hel's own, empty, in its state folder:
// started in the project, `npx` would run a package or `.bin` entry a clone committed under
// `node_modules/`, and npm would read the project's `.npmrc`. A trusted project's own entries start in
// the project, where the programs they name are hashed into its trust.
import { realpathSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import { ensureStateDir } from "../fs/state-dir.js";
import { isInside } from "./paths.js";

/** `PATH` without relative or empty entries and without folders inside `projectDir` (by their real paths too). */
export function pathOutside(path: string | undefined, projectDir: string): string {
  return (path ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir) && !isInside(projectDir, dir) && !isInside(projectDir, realOr(dir)))
    .join(delimiter);
}

/**
 * hel's empty working folder for the user's own programs (made mode 700 in the state folder); `/` where
 * the state folder is inside the project, which a command could fill, or cannot be made.
 */
export async function outsideDir(env: NodeJS.ProcessEnv, projectDir: string): Promise<string> {
  try {
    const dir = join(await ensureStateDir(env), "empty");
    await mkdir(dir, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EEXIST") throw e;
    });
    return isInside(projectDir, realOr(dir)) ? "/" : dir;
  } catch {
    // No state folder can be made (a read-only home): still not the project.
    return "/";
  }
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

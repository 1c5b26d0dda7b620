// hel's own directory in a project, `.hel/`: where it is, and the one way to create it, so that
// whichever writes first (a session's save or lease, a tool's spill) leaves it out of version control.
// `.hel` must be a real directory: a clone may commit `.hel` as a link (to `/tmp/elsewhere`, to `~`)
// to lead every file hel writes there out of the project, so a link is refused, never followed.
import { constants } from "node:fs";
import { access, lstat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ownDir } from "./own-dir.js";

export const helDir = (projectDir: string): string => join(resolve(projectDir), ".hel");

/**
 * Creates .hel/ with a .gitignore of "*" so nothing under it is ever committed; a no-op when present.
 * Throws NotOwnDirError (own-dir.ts) when .hel is a link or not a directory.
 */
export async function ensureHelDir(projectDir: string): Promise<string> {
  const dir = helDir(projectDir);
  await ownDir(projectDir, dir, true);
  try {
    // "wx": a .gitignore the user edited is theirs to keep.
    await writeFile(join(dir, ".gitignore"), "*\n", { flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  return dir;
}

/**
 * Why .hel/ could not be written, or null when it can: checked at start without writing anything, so
 * a run that could not save its session says so before its first request costs anything. Where
 * .hel/ does not exist yet, the project directory must let it be created.
 */
export async function helDirProblem(projectDir: string): Promise<string | null> {
  const dir = helDir(projectDir);
  const st = await lstat(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return null;
    throw e;
  });
  // A link could take every file hel writes there out of the project.
  if (st?.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (st && !st.isDirectory()) return `${dir} is not a directory`;
  const where = st ? dir : resolve(projectDir);
  try {
    await access(where, constants.W_OK | constants.X_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    return st ? `${dir} cannot be written (${code})` : `.hel/ cannot be created in ${where} (${code})`;
  }
}

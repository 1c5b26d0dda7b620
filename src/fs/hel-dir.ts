// hel's own directory in a project, `.hel/`: where it is, and the one way to create it, so that
// whichever writes first (a session's save or lease, a tool's spill) leaves it out of version control.
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";

export const helDir = (projectDir: string): string => join(resolve(projectDir), ".hel");

/** Creates .hel/ with a .gitignore of "*" so nothing under it is ever committed; a no-op when present. */
export async function ensureHelDir(projectDir: string): Promise<string> {
  const dir = helDir(projectDir);
  await mkdir(dir, { recursive: true });
  try {
    // "wx": a .gitignore the user edited is theirs to keep.
    await writeFile(join(dir, ".gitignore"), "*\n", { flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  return dir;
}

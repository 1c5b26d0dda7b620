// Where the project is, found from the folder hel starts in: the nearest folder at or above it that
// holds a `.hel/` folder or a `.git` (a folder, or the file a worktree or submodule has), else the
// starting folder itself. The search stops below the home folder: a `.hel/` left in the home folder,
// or a home folder kept in git for its dotfiles, must not make every folder under it one project
// whose tools can read all of home. Paths are real paths, as the tools' path checks compare them.
import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, relative, sep } from "node:path";

export interface ProjectLocation {
  /** The project's root, a real path: tools' paths and `.hel/` are relative to it. */
  root: string;
  /** The starting folder relative to the root, "/"-separated; "" at the root. */
  here: string;
}

/** `start` must be the real path of a directory; `home` is the folder the search stops below. */
export async function findProjectRoot(start: string, home: string = homedir()): Promise<ProjectLocation> {
  home = await realpath(home).catch(() => home);
  for (let dir = start; ; dir = dirname(dir)) {
    if (dir !== start && dir === home) break;
    if ((await isDirectory(join(dir, ".hel"))) || (await exists(join(dir, ".git")))) {
      return { root: dir, here: relative(dir, start).split(sep).join("/") };
    }
    if (dirname(dir) === dir) break;
  }
  return { root: start, here: "" };
}

const isDirectory = (path: string): Promise<boolean> => stat(path).then((s) => s.isDirectory(), () => false);
const exists = (path: string): Promise<boolean> => stat(path).then(() => true, () => false);

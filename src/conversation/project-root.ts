// Where the project is, found from the folder hel starts in: the nearest folder at or above it that
// holds a `.hel/` folder or a `.git` (a folder, or the file a worktree or submodule has), else the
// starting folder itself. The search stops below the home folder: a `.hel/` left in the home folder,
// or a home folder kept in git for its dotfiles, must not make every folder under it one project
// whose tools can read all of home. Paths are real paths, as the tools' path checks compare them.
// Nor is the project ever the home folder, `/`, a folder holding the home folder, or one holding (or
// inside) the user's hel config: the sandbox may write the whole project, and there it would write the
// user's config (a hook that runs next time anywhere) or shell start-up files.
import { realpathSync } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { isInside } from "../tools/paths.js";

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

const isDirectory = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Why `root` (a real path) may not be a project, or null when it may: one line naming -C. `configDir`: the user's hel config folder. */
export function refusedRoot(root: string, home: string, configDir: string): string | null {
  home = realOrSelf(home);
  const config = realOrSelf(configDir);
  let what: string | null = null;
  if (root === home) what = "your home folder";
  else if (dirname(root) === root) what = "the root of the file system";
  else if (isInside(root, home)) what = `a folder holding your home folder (${home})`;
  else if (isInside(root, config) || isInside(config, root)) what = `where your hel config is (${config})`;
  if (what === null) return null;
  return `${root} is ${what}, which hel does not take as a project: its commands may write the whole project — open a project's folder instead (on the command line, -C names one)`;
}

/** The real path of `path`, or of its nearest existing folder with the rest joined on. */
function realOrSelf(path: string): string {
  const rest: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      return join(realpathSync(dir), ...rest);
    } catch {
      if (dirname(dir) === dir) return resolve(path);
      rest.unshift(dir.slice(dirname(dir).length).replace(/^\//, ""));
    }
  }
}

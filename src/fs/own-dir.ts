// Directories hel keeps its own files in, below a directory it starts from (the project): each part of
// the path below it must be a real directory, never a symbolic link, since a cloned project or a command
// may plant one to lead hel's writes or reads out of the project. Parts that are missing are made.
import { lstat, mkdir } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";

/** A directory on the way is a symbolic link or not a directory: hel does not go through it. */
export class NotOwnDirError extends Error {
  override name = "NotOwnDirError";
}

/**
 * Makes sure `dir`, below `root`, is reached through real directories only; with `create`, makes the
 * missing ones. Resolves to false when `dir` is missing and not to be made.
 */
export async function ownDir(root: string, dir: string, create: boolean): Promise<boolean> {
  const below = relative(root, dir);
  if (below.startsWith("..") || isAbsolute(below)) throw new NotOwnDirError(`${dir} is not inside ${root}`);
  let at = root;
  for (const part of below.split(sep).filter(Boolean)) {
    at = join(at, part);
    let info = await lstat(at).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw e;
    });
    if (info === null) {
      if (!create) return false;
      await mkdir(at).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== "EEXIST") throw e;
      });
      info = await lstat(at);
    }
    if (info.isSymbolicLink()) throw new NotOwnDirError(`${at} is a symbolic link, which hel does not follow; remove it`);
    if (!info.isDirectory()) throw new NotOwnDirError(`${at} is not a directory; remove it`);
  }
  return true;
}

// The one reader of the files a start checks by the hundred (skills, named agents): synchronous, since
// nothing else waits at the start and a trip to the thread pool per file would hold up the first
// request. A folder is opened from where the caller trusts the path to lead (the project's root, a
// user's folder) and each folder below it without following a symlink (ELOOP, or ENOTDIR on a link, is
// PathChangedError); on Linux each name is then addressed from the open folder through /proc/self/fd,
// as openat does, so a folder swapped for a link after it was opened leads nowhere else. A file is
// opened without blocking (a FIFO cannot hang hel), never through a symlink unless the caller follows
// the user's own, and read as a regular file of at most a bound (fs/regular-file.ts).
import { closeSync, constants, lstatSync, openSync, realpathSync } from "node:fs";
import path from "node:path";
import { PathChangedError } from "../fs/beneath.js";
import { quietStat } from "../fs/quiet-stat.js";
import { readOpenedSync } from "../fs/regular-file.js";
import { isMissing } from "../tools/paths.js";

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const FILE_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

let procFd: boolean | undefined;
/** Whether /proc/self/fd paths address open folders here; asked once per process. */
const viaProc = (): boolean => (procFd ??= process.platform === "linux" && quietStat("/proc/self/fd") !== undefined);

export class OpenFolder {
  private constructor(
    private readonly fd: number,
    /** The path it was opened by. */
    readonly path: string,
  ) {}

  /** The folder at `root` (followed as given), then each of `walk` below it, none through a symlink. */
  static open(root: string, walk: readonly string[] = []): OpenFolder {
    let folder = new OpenFolder(openSync(root, constants.O_RDONLY | constants.O_DIRECTORY), root);
    for (const name of walk) {
      try {
        const child = folder.child(name);
        folder.close();
        folder = child;
      } catch (e) {
        folder.close();
        throw e;
      }
    }
    return folder;
  }

  /** A path naming `name` in this very folder, whatever its path leads to by now. */
  entry(name: string): string {
    return viaProc() ? `/proc/self/fd/${this.fd}/${name}` : path.join(this.path, name);
  }

  /** The folder `name` in this one, not through a symlink. */
  child(name: string): OpenFolder {
    try {
      return new OpenFolder(openSync(this.entry(name), DIR_FLAGS), path.join(this.path, name));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ELOOP" || (code === "ENOTDIR" && isLink(this.entry(name)))) throw new PathChangedError(`${path.join(this.path, name)} is a symbolic link`);
      throw e;
    }
  }

  /**
   * The text of the file `name` in this folder, of at most `maxBytes`; null when there is none. Throws
   * ELOOP for a symlink (unless `follow`) and FileRefused for what is not a regular file or too large.
   */
  read(name: string, maxBytes: number, follow = false): string | null {
    let fd: number;
    try {
      fd = openSync(this.entry(name), FILE_FLAGS | (follow ? 0 : constants.O_NOFOLLOW));
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
    try {
      return readOpenedSync(fd, maxBytes);
    } finally {
      closeSync(fd);
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

function isLink(at: string): boolean {
  try {
    return lstatSync(at).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The real path of a user's folder, which may lead anywhere; null when there is none to be had. */
export function realPathOrNull(dir: string): string | null {
  if (!quietStat(dir)) return null;
  try {
    return realpathSync.native(dir);
  } catch {
    return null;
  }
}

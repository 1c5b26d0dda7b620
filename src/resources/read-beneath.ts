// The one reader of the user's and the project's own files: synchronous, since nothing else waits at the
// start and a trip to the thread pool per file would hold up the first request. A folder is opened from
// where the caller trusts the path to lead (the project's root, a user's folder) and each folder below it
// without following a symlink (ELOOP, or ENOTDIR on a link, is PathChangedError); on Linux each name is
// then addressed from the open folder through /proc/self/fd, as openat does, so a folder swapped for a
// link after it was opened leads nowhere else. A file is opened without blocking (a FIFO cannot hang
// hel), never through a symlink unless the caller follows the user's own, and read as a regular file of
// at most a bound (fs/regular-file.ts). Rules and command files may be symlinks that stay where they
// belong (readWithin): the path is checked on real paths first, and then its real path is walked from
// the root, so a link put in place after the check is refused, not followed.
import { closeSync, constants, lstatSync, openSync, realpathSync } from "node:fs";
import path from "node:path";
import { PathChangedError } from "../fs/beneath.js";
import { quietStat } from "../fs/quiet-stat.js";
import { readOpenedSync, refuseIrregular } from "../fs/regular-file.js";
import { isInside, isMissing } from "../tools/paths.js";

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

  /**
   * Where the file `rel` beneath this folder (opened by its real path) leads once the symlinks on the
   * way are checked, on real paths, against `bounds`: the names of its real path from here; null when
   * there is nothing there. Throws LinkRefused for a link that leads out, into what is off limits, or
   * nowhere; a path off limits is refused whether or not there is anything there.
   */
  locate(rel: string, { within = this.path, offLimits = [] }: Bounds = {}): string[] | null {
    const lexical = path.join(this.path, rel);
    let real: string | null = null;
    try {
      real = realpathSync.native(lexical);
    } catch (e) {
      if (!isMissing(e)) throw e;
      if (isLink(lexical)) throw new LinkRefused("dangling", lexical);
    }
    if (real !== null && !(isInside(within, real) && isInside(this.path, real))) throw new LinkRefused("out", real);
    const off = offLimits.find((folder) => isInside(folder, lexical) || (real !== null && isInside(folder, real)));
    if (off !== undefined) throw new LinkRefused("off-limits", real ?? lexical);
    return real === null ? null : path.relative(this.path, real).split(path.sep);
  }

  /**
   * The text of the file that `names` (from locate) reach from this folder, none of them through a
   * symlink now: one that is a link since it was checked is PathChangedError. What is not a regular
   * file is refused before it is opened (opening a device may do something); null when it is gone.
   */
  readReached(names: readonly string[], maxBytes: number): string | null {
    const name = names.at(-1)!;
    let folder: OpenFolder = this;
    try {
      for (const next of names.slice(0, -1)) {
        const child = folder.child(next);
        if (folder !== this) folder.close();
        folder = child;
      }
      const changed = () => new PathChangedError(`${path.join(folder.path, name)} is a symbolic link`);
      const info = quietStat(folder.entry(name));
      if (info?.isSymbolicLink()) throw changed();
      if (info) refuseIrregular(info);
      try {
        return folder.read(name, maxBytes);
      } catch (e) {
        throw (e as NodeJS.ErrnoException).code === "ELOOP" ? changed() : e;
      }
    } finally {
      if (folder !== this) folder.close();
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Where a followed symlink may lead: within a folder, and into none that is off limits. */
export interface Bounds {
  /** A real folder at or beneath the open one; the open one when not given. */
  within?: string;
  /** Folders off limits however they are reached (hel's own .hel/), by their path and their real path. */
  offLimits?: readonly string[];
}

/** A symlink not followed: one leading out of bounds (`at` its real target), off limits, or to nothing (`at` the link). */
export class LinkRefused extends Error {
  override name = "LinkRefused";
  constructor(
    readonly kind: "out" | "off-limits" | "dangling",
    readonly at: string,
  ) {
    super(`${kind}: ${at}`);
  }
}

/** The text of the file `rel` beneath the real folder `root`, through symlinks only within `bounds`; null when there is none. */
export function readWithin(root: string, rel: string, maxBytes: number, bounds?: Bounds): string | null {
  const folder = OpenFolder.open(root);
  try {
    const names = folder.locate(rel, bounds);
    return names === null ? null : folder.readReached(names, maxBytes);
  } finally {
    folder.close();
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

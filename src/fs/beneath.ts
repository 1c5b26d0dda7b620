// Reaches what lies beneath a directory without following a symlink on the way, so that a path checked
// once cannot be redirected afterwards by swapping one of its directories for a symlink: the swap makes
// the operation fail (PathChangedError) instead of leading elsewhere.
//
// On Linux every directory is opened with O_DIRECTORY|O_NOFOLLOW and the next name is addressed from it
// through /proc/self/fd/<fd>/<name>, which the kernel resolves from the open directory, as openat does.
// Files are opened, created and renamed through those paths too, so no path is looked up from the top
// again once the walk has begun. Where /proc is missing (macOS), names are addressed by their full path,
// still opened with O_NOFOLLOW, and `verify` compares the directory's identity (device and inode) and
// real path with what its path leads to now; callers verify after opening and before renaming. That
// narrows the window to the moments between those checks; it does not close it.
import { constants, type Stats } from "node:fs";
import { access, lstat, mkdir, open, realpath, type FileHandle } from "node:fs/promises";
import path from "node:path";

/** What a checked path leads to, or a directory on its way, was replaced (by a symlink, a file, another directory). */
export class PathChangedError extends Error {
  override name = "PathChangedError";
  readonly code = "EPATHCHANGED";
}

export interface OpenDir {
  /** A path naming `name` in this very directory, whatever its path leads to by now. */
  entry(name: string): string;
  /** The directory `name` in this one, opened without following a symlink; made first when `create`. */
  child(name: string, create?: boolean): Promise<OpenDir>;
  /** The file `name` in this one, opened with `flags` and never through a symlink. */
  open(name: string, flags: number, mode?: number): Promise<FileHandle>;
  /** Where /proc is missing: throws PathChangedError when the directory is no longer the one at its path. */
  verify(): Promise<void>;
  close(): Promise<void>;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

let procFd: Promise<boolean> | undefined;
/** Whether /proc/self/fd paths can address open directories here; asked once per process. */
export function hasProcFd(): Promise<boolean> {
  procFd ??= access("/proc/self/fd").then(
    () => process.platform === "linux",
    () => false,
  );
  return procFd;
}

/**
 * Opens `root` (trusted as given: it is where the walk starts), then each of `names` below it in turn.
 * With `create`, missing directories are made. `viaProc` is for tests of the fallback.
 */
export async function openBeneath(root: string, names: readonly string[], create = false, viaProc?: boolean): Promise<OpenDir> {
  let dir: OpenDir = new Dir(await open(root, constants.O_RDONLY | constants.O_DIRECTORY), root, viaProc ?? (await hasProcFd()));
  for (const name of names) {
    try {
      const next = await dir.child(name, create);
      await dir.close();
      dir = next;
    } catch (e) {
      await dir.close();
      throw e;
    }
  }
  return dir;
}

class Dir implements OpenDir {
  constructor(
    private readonly handle: FileHandle,
    /** The path the directory was opened by. */
    private readonly dirPath: string,
    private readonly viaProc: boolean,
  ) {}

  entry(name: string): string {
    return this.viaProc ? `/proc/self/fd/${this.handle.fd}/${name}` : path.join(this.dirPath, name);
  }

  async child(name: string, create = false): Promise<OpenDir> {
    if (create) {
      await mkdir(this.entry(name)).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== "EEXIST") throw e;
      });
    }
    const handle = await open(this.entry(name), DIR_FLAGS).catch((e: NodeJS.ErrnoException) => this.refuseLink(name, e));
    const dir = new Dir(handle, path.join(this.dirPath, name), this.viaProc);
    try {
      await this.verify();
      await dir.verify();
    } catch (e) {
      await dir.close();
      throw e;
    }
    return dir;
  }

  async open(name: string, flags: number, mode?: number): Promise<FileHandle> {
    const handle = await open(this.entry(name), flags | constants.O_NOFOLLOW, mode).catch((e: NodeJS.ErrnoException) => this.refuseLink(name, e));
    try {
      await this.verify();
    } catch (e) {
      await handle.close();
      throw e;
    }
    return handle;
  }

  async verify(): Promise<void> {
    if (this.viaProc) return;
    const [opened, now, real] = await Promise.all([this.handle.stat(), lstat(this.dirPath).catch(() => null), realpath(this.dirPath).catch(() => null)]);
    if (now === null || !sameFile(opened, now) || real !== this.dirPath) throw this.changed();
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  /** A no-follow open fails with ELOOP or ENOTDIR on a symlink: that is a swap; anything else is itself. */
  private async refuseLink(name: string, e: NodeJS.ErrnoException): Promise<never> {
    if (e.code === "ELOOP" || e.code === "ENOTDIR") {
      const st = await lstat(this.entry(name)).catch(() => null);
      if (e.code === "ELOOP" || st?.isSymbolicLink()) throw this.changed();
    }
    throw e;
  }

  private changed(): PathChangedError {
    return new PathChangedError(`${this.dirPath} was replaced while it was in use`);
  }
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

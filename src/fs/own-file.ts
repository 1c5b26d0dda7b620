// Files hel writes in place rather than by atomic replacement (the --record files and the prompt
// history, appended to as a run goes), and the small files it replaces in one go from synchronous code. A command may have
// planted a symlink, a hard link, a FIFO or a device where such a file goes, to make hel write
// somewhere else or wait: hel puts a new file in its place, or appends only to a regular file it
// opened without following a link.
import { constants, lstatSync, lutimesSync, mkdirSync, openSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { FileRefused } from "./regular-file.js";

/**
 * A new, empty file at `path`, open for appending. Whatever was there is removed first, as its name
 * only (a symlink, not its target; one name of a hard-linked file): the file is created afresh, and
 * opening it fails rather than follow anything planted in between. A directory there is refused.
 */
export function createOwnFileSync(path: string): number {
  try {
    unlinkSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EISDIR" || code === "EPERM") throw new FileRefused("is a directory");
    if (code !== "ENOENT") throw e;
  }
  return openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
}

/** Appends `data` to the regular file `path`, created if missing; throws FileRefused for a symlink, a FIFO or a device there. */
export async function appendOwnFile(path: string, data: string, mode: number): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode).catch((e: NodeJS.ErrnoException) => {
    throw e.code === "ELOOP" ? new FileRefused("is a symbolic link") : e;
  });
  try {
    if (!(await handle.stat()).isFile()) throw new FileRefused("is not a regular file");
    await handle.appendFile(data);
  } finally {
    await handle.close();
  }
}

/** Replaces `path` with `data` by renaming a new file over it; `mtime` (seconds) is the new file's modification time. */
export function replaceFileSync(path: string, data: string, mtime?: number): void {
  // The temporary name need only differ from other writers' (O_EXCL makes a clash fail, never
  // clobber), so Math.random serves: node:crypto would be loaded before a start's first request.
  const tmp = `${path}.${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`;
  try {
    writeFileSync(tmp, data, { flag: "wx", mode: 0o644 });
    if (mtime !== undefined) lutimesSync(tmp, mtime, mtime);
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // Not there: the write failed before creating it, or the rename went through.
    }
    throw e;
  }
}

/** Creates the directory `path` (and its parents); throws FileRefused when a symlink or a file is in its place. */
export function ownDirectorySync(path: string): void {
  mkdirSync(path, { recursive: true });
  const info = lstatSync(path);
  if (info.isSymbolicLink()) throw new FileRefused("is a symbolic link");
  if (!info.isDirectory()) throw new FileRefused("is not a directory");
}

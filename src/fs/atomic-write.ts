// Replaces a file so that readers, and a crash at any moment, see either the old bytes or the new ones,
// never a mix: write a temporary file beside it, check and fsync it, rename it over the target, then
// fsync the directory so the rename itself survives a power cut.
//
// Why not write-file-atomic: version 7 issues one write() and ignores a short count, so on a full disk
// (or a file size limit) it fsyncs and renames a truncated file over the good one. hel's writer loops
// until every byte is written and surfaces the ENOSPC that follows a short write.
import { randomBytes } from "node:crypto";
import { open, readdir, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Writes all of `pieces`, in order, into the open temporary file; injectable so tests can fail it halfway. */
export type WriteData = (file: FileHandle, pieces: readonly Uint8Array[]) => Promise<void>;

// One writev() for all the pieces when the kernel takes them, as it does for a regular file; looping
// on a short count. (FileHandle.writeFile cuts the data into many small writes, a thread-pool round
// trip each.)
export const writeAll: WriteData = async (file, pieces) => {
  let rest = pieces.filter((p) => p.byteLength > 0);
  for (let at = 0; rest.length > 0; ) {
    const { bytesWritten } = await file.writev(rest, at);
    if (bytesWritten === 0) throw Object.assign(new Error(`short write (${at} of ${byteLength(pieces)} bytes)`), { code: "ESHORTWRITE" });
    at += bytesWritten;
    rest = after(rest, bytesWritten);
  }
};

/** What of `pieces` is left once their first `count` bytes are written. */
function after(pieces: readonly Uint8Array[], count: number): Uint8Array[] {
  let i = 0;
  while (i < pieces.length && count >= pieces[i]!.byteLength) count -= pieces[i++]!.byteLength;
  const rest = pieces.slice(i);
  if (count > 0) rest[0] = rest[0]!.subarray(count);
  return rest;
}

const byteLength = (pieces: readonly Uint8Array[]): number => pieces.reduce((n, p) => n + p.byteLength, 0);

export interface AtomicWriteOptions {
  writeData?: WriteData;
  /** Permission bits of the new file; applied exactly, whatever the umask (an edited file keeps its mode). */
  mode?: number;
  /** Owner and group of the new file, as far as this process may set them; the rest stays its own. */
  owner?: { uid: number; gid: number };
  /**
   * Runs the rename that puts the file in place, once the data is on disk: a caller that must check,
   * under a lock, that it may still replace the file wraps it here. Not calling `rename` (throwing)
   * leaves the target untouched and the temporary file removed.
   */
  commit?: (rename: () => Promise<void>) => Promise<void>;
}

/** `data` is the file's bytes, whole or in pieces written one after another. */
export async function writeFileAtomic(path: string, data: Uint8Array | readonly Uint8Array[], options: AtomicWriteOptions = {}): Promise<void> {
  const pieces = data instanceof Uint8Array ? [data] : data;
  const size = byteLength(pieces);
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  let file: FileHandle | undefined;
  let renamed = false;
  try {
    file = await open(tmp, "wx", options.mode ?? 0o600);
    if (options.owner) await setOwner(file, options.owner);
    // After the owner: a chown clears the set-user-ID and set-group-ID bits.
    if (options.mode !== undefined) await file.chmod(options.mode);
    await (options.writeData ?? writeAll)(file, pieces);
    // Belt and braces: whatever the writer reported, a file of the wrong size is never renamed into place.
    const written = (await file.stat()).size;
    if (written !== size) {
      throw Object.assign(new Error(`short write (${written} of ${size} bytes)`), { code: "ESHORTWRITE" });
    }
    await file.sync();
    await file.close();
    file = undefined;
    const renameIntoPlace = async (): Promise<void> => {
      await rename(tmp, path);
      renamed = true;
    };
    await (options.commit ? options.commit(renameIntoPlace) : renameIntoPlace());
  } finally {
    if (file) await file.close().catch(() => undefined);
    if (!renamed) await unlink(tmp).catch(() => undefined);
  }
  await syncDirectory(dirname(path));
  await sweepOrphans(path);
}

/** Only root may give a file away, and a group only to one it belongs to: what is refused stays as created. */
async function setOwner(file: FileHandle, owner: { uid: number; gid: number }): Promise<void> {
  const refused = (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPERM") throw e;
  };
  await file.chown(owner.uid, owner.gid).catch(async (e: NodeJS.ErrnoException) => {
    refused(e);
    await file.chown(-1, owner.gid).catch(refused);
  });
}

/** Some platforms (Windows, some network file systems) cannot fsync a directory; the rename stands anyway. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // Tolerated by design: see above.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

// A process killed mid-write leaves its temporary file behind. Only files of processes that are gone
// are removed, so a concurrent writer in another live process is never disturbed.
async function sweepOrphans(path: string): Promise<void> {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)-[0-9a-f]+\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (!m || processAlive(Number(m[1]))) continue;
    await unlink(join(dirname(path), name)).catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

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

/** Writes all of `data` into the open temporary file; injectable so tests can fail it halfway. */
export type WriteData = (file: FileHandle, data: Uint8Array) => Promise<void>;

// One write() for the whole buffer when the kernel takes it, as it does for a regular file; looping
// on a short count. (FileHandle.writeFile cuts the data into 512 KB writes, a thread-pool round trip
// each: ~1.5 ms of a 10 MB save.)
const writeAll: WriteData = async (file, data) => {
  for (let at = 0; at < data.byteLength; ) {
    const { bytesWritten } = await file.write(data, at, data.byteLength - at, at);
    if (bytesWritten === 0) throw Object.assign(new Error(`short write (${at} of ${data.byteLength} bytes)`), { code: "ESHORTWRITE" });
    at += bytesWritten;
  }
};

export interface AtomicWriteOptions {
  writeData?: WriteData;
  /** Permission bits of the new file; applied exactly, whatever the umask (an edited file keeps its mode). */
  mode?: number;
}

export async function writeFileAtomic(path: string, data: Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  let file: FileHandle | undefined;
  let renamed = false;
  try {
    file = await open(tmp, "wx", options.mode ?? 0o600);
    if (options.mode !== undefined) await file.chmod(options.mode);
    await (options.writeData ?? writeAll)(file, data);
    // Belt and braces: whatever the writer reported, a file of the wrong size is never renamed into place.
    const { size } = await file.stat();
    if (size !== data.byteLength) {
      throw Object.assign(new Error(`short write (${size} of ${data.byteLength} bytes)`), { code: "ESHORTWRITE" });
    }
    await file.sync();
    await file.close();
    file = undefined;
    await rename(tmp, path);
    renamed = true;
  } finally {
    if (file) await file.close().catch(() => undefined);
    if (!renamed) await unlink(tmp).catch(() => undefined);
  }
  await syncDirectory(dirname(path));
  await sweepOrphans(path);
}

/** Some platforms (Windows, some network file systems) cannot fsync a directory; the rename stands anyway. */
export async function syncDirectory(dir: string): Promise<void> {
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

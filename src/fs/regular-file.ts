// Files hel reads because a person or a project named them (config files, trusted.json, HEL_PRICES):
// only a regular file, and only up to a bound. A FIFO in a config's place would block open() until
// something wrote to it, a device such as /dev/zero never ends, and a huge file would end in a
// RangeError: each is refused with an error whose message says what the file is instead.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/** The reason a file was refused, as words that follow its path: "is a FIFO, not a regular file". */
export class FileRefused extends Error {
  override name = "FileRefused";
}

// O_NONBLOCK changes nothing for a regular file; for a FIFO it makes open() return at once.
const openFlags = (follow: boolean) => constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW);

/** Throws FileRefused, saying what it is instead, unless `info` is a regular file's. */
export function refuseIrregular(info: Stats): void {
  if (!info.isFile()) throw new FileRefused(`is ${kindOf(info)}, not a regular file`);
}

/** The buffer to read a file of `size` into: up to one byte past the bound, whatever the size said (it may grow meanwhile). */
function bufferFor(info: Stats, maxBytes: number): Buffer {
  refuseIrregular(info);
  return Buffer.alloc(Math.min(maxBytes, info.size) + 1);
}

function textOf(buffer: Buffer, length: number, maxBytes: number): string {
  if (length > maxBytes) throw new FileRefused(`is larger than ${maxBytes >> 10} KB`);
  return buffer.toString("utf8", 0, length);
}

/**
 * The file's text; throws FileRefused for what is not a regular file of at most `maxBytes`, and the
 * OS error otherwise (ELOOP for a symlink when `follow` is false: a file of hel's own under .hel/).
 */
export async function readRegularFile(path: string, maxBytes: number, follow = true): Promise<string> {
  const handle = await open(path, openFlags(follow));
  try {
    return await readOpened(handle, maxBytes);
  } finally {
    await handle.close();
  }
}

/** readRegularFile without a trip to the thread pool per call: for many small files read at start. */
export function readRegularFileSync(path: string, maxBytes: number, follow = true): string {
  const fd = openSync(path, openFlags(follow));
  try {
    return readOpenedSync(fd, maxBytes);
  } finally {
    closeSync(fd);
  }
}

/** The text of a file opened without blocking; throws as readRegularFile. */
async function readOpened(handle: FileHandle, maxBytes: number): Promise<string> {
  const buffer = bufferFor(await handle.stat(), maxBytes);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    length += bytesRead;
    if (bytesRead === 0 || length === buffer.length) break;
  }
  return textOf(buffer, length, maxBytes);
}

/** readOpened for a file descriptor; `stats` are its fstat, when the caller has taken them already. */
export function readOpenedSync(fd: number, maxBytes: number, stats: Stats = fstatSync(fd)): string {
  const buffer = bufferFor(stats, maxBytes);
  let length = 0;
  for (;;) {
    const bytesRead = readSync(fd, buffer, length, buffer.length - length, length);
    length += bytesRead;
    if (bytesRead === 0 || length === buffer.length) break;
  }
  return textOf(buffer, length, maxBytes);
}

/** Why a read failed, as words that follow the file's path, for an error a person reads. */
export function readProblem(error: unknown): string {
  if (error instanceof FileRefused) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP") return "is a loop of symbolic links";
  if (code === "EACCES" || code === "EPERM") return "cannot be read (permission denied)";
  if (code === "EISDIR") return "is a directory, not a regular file";
  return `cannot be read (${code ?? (error instanceof Error ? error.message : String(error))})`;
}

function kindOf(info: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "of an unknown kind";
}

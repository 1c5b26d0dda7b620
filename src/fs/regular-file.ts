// Files hel reads because a person or a project named them (config files, trusted.json, HEL_PRICES):
// only a regular file, and only up to a bound. A FIFO in a config's place would block open() until
// something wrote to it, a device such as /dev/zero never ends, and a huge file would end in a
// RangeError: each is refused with an error whose message says what the file is instead.
import { constants, readSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/** The reason a file was refused, as words that follow its path: "is a FIFO, not a regular file". */
export class FileRefused extends Error {
  override name = "FileRefused";
}

/**
 * The file's text; throws FileRefused for what is not a regular file of at most `maxBytes`, and the
 * OS error otherwise (ELOOP for a symlink when `follow` is false: a file of hel's own under .hel/).
 */
export async function readRegularFile(path: string, maxBytes: number, follow = true): Promise<string> {
  // O_NONBLOCK changes nothing for a regular file; for a FIFO it makes open() return at once.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW));
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new FileRefused(`is ${kindOf(info)}, not a regular file`);
    const text = await readBounded(handle, info.size, maxBytes);
    if (text === null) throw new FileRefused(`is larger than ${maxBytes >> 10} KB`);
    return text;
  } finally {
    await handle.close();
  }
}

/** The text of an open regular file whose size was `size`, or null when it holds more than `maxBytes`. */
export async function readBounded(handle: FileHandle, size: number, maxBytes: number): Promise<string | null> {
  // Up to one byte past the bound, whatever the size said: the file may grow meanwhile.
  const buffer = Buffer.alloc(Math.min(maxBytes, size) + 1);
  let length = 0;
  for (let n = -1; n !== 0 && length < buffer.length; length += n) n = (await handle.read(buffer, length, buffer.length - length, length)).bytesRead;
  return length > maxBytes ? null : buffer.toString("utf8", 0, length);
}

/** readBounded for a file descriptor, for many small files read where nothing else waits meanwhile. */
export function readBoundedSync(fd: number, size: number, maxBytes: number): string | null {
  const buffer = Buffer.alloc(Math.min(maxBytes, size) + 1);
  let length = 0;
  for (let n = -1; n !== 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, length);
  return length > maxBytes ? null : buffer.toString("utf8", 0, length);
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

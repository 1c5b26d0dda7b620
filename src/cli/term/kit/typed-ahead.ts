// What was typed before a question was shown, taken out of the terminal's input so that it cannot
// answer the question: bytes the terminal holds that were not read yet (hel was busy, or it reads no
// keys while it works, as a one-shot run does) and bytes read but not yet handed on. The terminal's
// own input is read without waiting, which Node makes possible by opening a terminal without blocking;
// only where the system says so (Linux: /proc/self/fdinfo), since a read that waits would hang hel.
import { readFileSync, readSync } from "node:fs";

const O_NONBLOCK = 0o4000;

export function takeTypedAhead(input: NodeJS.ReadStream & { fd?: number }): Buffer {
  const taken: Buffer[] = [];
  for (let chunk: unknown; input.readableLength > 0 && (chunk = input.read()) !== null; ) taken.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  const fd = input.fd;
  if (fd === undefined || !readsWithoutWaiting(fd)) return Buffer.concat(taken);
  const buffer = Buffer.alloc(4096);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      // EAGAIN: nothing more is waiting.
      break;
    }
    if (n <= 0) break;
    taken.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(taken);
}

function readsWithoutWaiting(fd: number): boolean {
  try {
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
    return flags !== null && (parseInt(flags[1]!, 8) & O_NONBLOCK) !== 0;
  } catch {
    return false;
  }
}

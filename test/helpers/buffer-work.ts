// Work measured without a clock: the bytes Buffer#indexOf searches and the bytes Buffer.concat copies
// while a piece of code runs, for tests that hold a reader to work linear in its input.
import { vi } from "vitest";

export interface BufferWork {
  /** Bytes searched by Buffer#indexOf: from where each search began to where it stopped. */
  searched: number;
  /** Bytes copied by Buffer.concat. */
  copied: number;
  concats: number;
}

export async function measureBufferWork<T>(run: () => T | Promise<T>): Promise<{ result: T; work: BufferWork }> {
  const work: BufferWork = { searched: 0, copied: 0, concats: 0 };
  const indexOf = Buffer.prototype.indexOf;
  const searches = vi.spyOn(Buffer.prototype, "indexOf").mockImplementation(function (this: Buffer, value, from, encoding) {
    const at = indexOf.call(this, value, from, encoding);
    const start = typeof from === "number" ? (from < 0 ? Math.max(this.length + from, 0) : from) : 0;
    work.searched += (at === -1 ? this.length : at + 1) - start;
    return at;
  });
  const concat = Buffer.concat;
  const concats = vi.spyOn(Buffer, "concat").mockImplementation((list, length) => {
    const joined = concat(list, length);
    work.concats++;
    work.copied += joined.length;
    return joined;
  });
  try {
    return { result: await run(), work };
  } finally {
    searches.mockRestore();
    concats.mockRestore();
  }
}

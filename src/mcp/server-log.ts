// A stdio MCP server's stderr, kept in its log file in bounded space whatever it writes (one start once
// wrote 201 MB): the file grows to twice KEEP_BYTES at most, then starts again from a line saying how
// much was cut and the last KEEP_BYTES the server wrote, so it always ends with what the server said
// last. Writes are synchronous on an O_APPEND descriptor: a truncation can never land between them. A
// file that cannot be written any more (a full disk) is given up quietly: the server goes on.
import { closeSync, ftruncateSync, writeSync } from "node:fs";

export const KEEP_BYTES = 1024 * 1024;

export class ServerLog {
  private size = 0;
  private cutBytes = 0;
  /** The latest chunks, at least KEEP_BYTES of them once that much came. */
  private tail: Buffer[] = [];
  private tailBytes = 0;

  constructor(private fd: number | null) {}

  write(chunk: Buffer): void {
    if (this.fd === null) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0]!.length >= KEEP_BYTES) this.tailBytes -= this.tail.shift()!.length;
    try {
      if (this.size + chunk.length <= 2 * KEEP_BYTES) {
        writeSync(this.fd, chunk);
        this.size += chunk.length;
        return;
      }
      const kept = Buffer.concat(this.tail).subarray(-KEEP_BYTES);
      this.cutBytes += this.size + chunk.length - kept.length;
      const text = Buffer.concat([Buffer.from(`[hel: ${this.cutBytes} earlier bytes of this log were cut; what follows is the last ${kept.length}]\n`), kept]);
      ftruncateSync(this.fd, 0);
      writeSync(this.fd, text);
      this.size = text.length;
    } catch {
      this.end();
    }
  }

  end(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

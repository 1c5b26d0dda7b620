// Writes text as UTF-8 into one growing buffer, so a large body is built without joining strings
// and without a fresh allocation each time: a caller that keeps the writer reuses memory that is
// already mapped (on small VMs, touching fresh memory costs several ms per MB).
export class ByteWriter {
  private length = 0;

  constructor(private buffer: Buffer = Buffer.allocUnsafe(64 * 1024)) {}

  reset(): this {
    this.length = 0;
    return this;
  }

  put(text: string): void {
    // A UTF-16 unit never takes more than 3 UTF-8 bytes; count exactly only when that bound does not fit.
    if (this.length + text.length * 3 > this.buffer.length) {
      const needed = this.length + Buffer.byteLength(text, "utf8");
      if (needed > this.buffer.length) {
        const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
        this.buffer.copy(grown, 0, 0, this.length);
        this.buffer = grown;
      }
    }
    this.length += this.buffer.write(text, this.length, "utf8");
  }

  /** What was written so far: a view of the writer's buffer, valid until the next reset. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

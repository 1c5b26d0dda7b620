// Writes text as UTF-8 into one growing buffer, so a large body is built without joining strings
// and without a fresh allocation each time: a caller that keeps the writer reuses memory that is
// already mapped (on small VMs, touching fresh memory costs several ms per MB).
export class ByteWriter {
  // V8 forgets the shape of a class's instances once none is left, and with it the optimized code built
  // on that shape (put, and the serializers' loops around it). A writer lives for one request or one
  // save, so without this one, which lives as long as the class, that code would be rebuilt each time.
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: held, never read, as the comment above says
  static readonly #resident = new ByteWriter(Buffer.alloc(0));

  private length = 0;

  constructor(private buffer: Buffer = Buffer.allocUnsafe(64 * 1024)) {}

  reset(): this {
    this.length = 0;
    return this;
  }

  put(text: string): void {
    // A UTF-16 unit never takes more than 3 UTF-8 bytes; count exactly only when that bound does not fit.
    if (this.length + text.length * 3 > this.buffer.length) this.room(Buffer.byteLength(text, "utf8"));
    this.length += this.buffer.write(text, this.length, "utf8");
  }

  /** Makes room for `bytes` more, at once: a large body grown by doubling would be copied again each time. */
  reserve(bytes: number): void {
    this.room(bytes);
  }

  /** Appends `source[start, end)`, bytes that are already UTF-8. */
  putBytes(source: Buffer, start: number, end: number): void {
    this.room(end - start);
    this.length += source.copy(this.buffer, this.length, start, end);
  }

  private room(bytes: number): void {
    const needed = this.length + bytes;
    if (needed <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  /** What was written so far: a view of the writer's buffer, valid until the next reset. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  /** What was written from offset `from` on (a view, as bytes()), and the offset that follows it. */
  since(from: number): { bytes: Buffer; end: number } {
    return { bytes: this.buffer.subarray(from, this.length), end: this.length };
  }

  /** The memory written into, grown as needed: for a caller that keeps it for the next writer. */
  get memory(): Buffer {
    return this.buffer;
  }
}

// Splits a server-sent event stream into the data of its events (each event's `data:` lines joined by
// line breaks), in work linear in the stream's size however it is cut into chunks: each byte is
// searched once for a line break, and copied once at most, when a line that spans chunks ends. (The
// openai SDK's own reader copies and searches everything it holds again for every chunk, so one event
// of many megabytes, arriving in thousands of chunks, cost it time quadratic in its size.)
// Comments and the other fields (event, id, retry) are skipped: DeepSeek sends only data. An event the
// stream ends in the middle of is never given out: it may be cut short.
//
// A chunk is kept, not copied, until its last line ends: it must not be changed after it is pushed.

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

export class SseDecoder {
  /** The start of a line not yet ended, as the parts of the chunks it came in. */
  private partial: Buffer[] = [];
  /** The data lines of the event not yet ended. */
  private data: string[] = [];
  /** The last chunk ended with CR: an LF that opens the next one is part of the same line break. */
  private afterCR = false;

  /** The data of the events this chunk ends, in order. */
  push(chunk: Uint8Array): string[] {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const events: string[] = [];
    if (bytes.length === 0) return events;
    let pos = this.afterCR && bytes[0] === LF ? 1 : 0;
    this.afterCR = false;
    // The next LF and CR at or after pos; searched again only once pos has passed them, so each part
    // of the chunk is searched once for each (-1: none in the rest of the chunk).
    let lf = -2;
    let cr = -2;
    while (pos < bytes.length) {
      if (lf !== -1 && lf < pos) lf = bytes.indexOf(LF, pos);
      if (cr !== -1 && cr < pos) cr = bytes.indexOf(CR, pos);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) break;
      this.line(this.ended(bytes.subarray(pos, end)), events);
      pos = end + 1;
      if (end === cr) {
        if (pos === bytes.length) this.afterCR = true;
        else if (bytes[pos] === LF) pos++;
      }
    }
    if (pos < bytes.length) this.partial.push(bytes.subarray(pos));
    return events;
  }

  /** The whole line whose last part is `tail`: copied only when it began in an earlier chunk. */
  private ended(tail: Buffer): Buffer {
    if (this.partial.length === 0) return tail;
    this.partial.push(tail);
    const line = Buffer.concat(this.partial);
    this.partial = [];
    return line;
  }

  private line(line: Buffer, events: string[]): void {
    if (line.length === 0) {
      if (this.data.length > 0) events.push(this.data.join("\n"));
      this.data = [];
      return;
    }
    if (line[0] === COLON) return;
    const colon = line.indexOf(COLON);
    const name = colon === -1 ? line : line.subarray(0, colon);
    if (name.length !== 4 || name.toString("latin1") !== "data") return;
    let start = colon === -1 ? line.length : colon + 1;
    if (line[start] === SPACE) start++;
    this.data.push(line.toString("utf8", start));
  }
}

/** The data of each event of `body`, as the events arrive. */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new SseDecoder();
  for await (const chunk of body) yield* decoder.push(chunk);
}

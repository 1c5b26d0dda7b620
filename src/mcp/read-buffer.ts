// The line reader of a stdio MCP server's answers, in place of the SDK's: the SDK's throws on a message
// longer than its limit and the transport then kills the server, so one large answer of a healthy
// server took it out of the run. This one holds at most `limit` bytes of a line: a longer line is let
// stream past while its top level is scanned for the response's `id`, and is replaced by an error
// response for that id (TOO_LARGE in its data), so the one call fails saying why and the server stays.
// A dropped line without an id (a notification) is only gone. Same contract as the SDK's ReadBuffer:
// append(chunk), readMessage() (null when no whole line is waiting; throws on a line that is not
// JSON-RPC), clear().
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** What the error response for a dropped answer carries in its `data`, with the answer's size. */
export const TOO_LARGE = "hel: answer too large";

const NEWLINE = 0x0a;

type Line = Buffer | { dropped: number; id: string | number | null };

export class BoundedReadBuffer {
  private pieces: Buffer[] = [];
  private size = 0;
  /** The scan of the line being dropped, while one is. */
  private dropping: TopLevelId | null = null;
  private readonly lines: Line[] = [];

  constructor(private readonly limit: number) {}

  append(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const end = chunk.indexOf(NEWLINE, from);
      const piece = chunk.subarray(from, end === -1 ? chunk.length : end);
      this.take(piece);
      if (end === -1) return;
      this.endLine();
      from = end + 1;
    }
  }

  readMessage(): JSONRPCMessage | null {
    for (let line = this.lines.shift(); line !== undefined; line = this.lines.shift()) {
      if (Buffer.isBuffer(line)) return deserializeMessage(line.toString("utf8").replace(/\r$/, ""));
      if (line.id === null) continue;
      const mb = (line.dropped / (1024 * 1024)).toFixed(1);
      const message = `its answer was ${mb} MB, more than the ${this.limit / (1024 * 1024)} MB hel takes from an MCP server, so it was dropped (the server still runs) — ask for less at a time`;
      return { jsonrpc: "2.0", id: line.id, error: { code: -32603, message, data: { [TOO_LARGE]: line.dropped } } };
    }
    return null;
  }

  clear(): void {
    this.pieces = [];
    this.size = 0;
    this.dropping = null;
    this.lines.length = 0;
  }

  private take(piece: Buffer): void {
    if (this.dropping === null && this.size + piece.length > this.limit) {
      this.dropping = new TopLevelId();
      for (const held of this.pieces) this.dropping.feed(held);
      this.pieces = [];
    }
    if (this.dropping) this.dropping.feed(piece);
    else if (piece.length > 0) this.pieces.push(Buffer.from(piece));
    this.size += piece.length;
  }

  private endLine(): void {
    this.lines.push(this.dropping ? { dropped: this.size, id: this.dropping.id } : Buffer.concat(this.pieces));
    this.pieces = [];
    this.size = 0;
    this.dropping = null;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = new Set([0x7b, 0x5b]);
const CLOSE = new Set([0x7d, 0x5d]);
/** An id is a number or a short string; a longer one is not kept. */
const MAX_ID_BYTES = 256;

/**
 * The top-level `"id"` of a JSON object, found as its bytes stream past, holding only the key or id
 * being read. Bytes, not characters: every byte of a multi-byte UTF-8 character is above 0x7f, so none
 * is taken for a quote, a brace or a comma.
 */
class TopLevelId {
  id: string | number | null = null;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectKey = false;
  private key = "";
  /** What is being read: a top-level key, the id's value, or neither. */
  private reading: "key" | "id" | null = null;
  private text: number[] = [];

  feed(bytes: Buffer): void {
    for (const b of bytes) {
      if (this.reading && this.text.length < MAX_ID_BYTES) this.text.push(b);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.reading === "key") {
            this.key = this.parsed() as string;
            this.reading = null;
          }
        }
        continue;
      }
      if (b === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && this.expectKey) {
          this.expectKey = false;
          this.reading = "key";
          this.text = [b];
        }
      } else if (OPEN.has(b)) {
        this.depth++;
        if (this.depth === 1) this.expectKey = b === 0x7b;
        else if (this.reading === "id") this.reading = null;
      } else if (CLOSE.has(b) || b === COMMA) {
        if (this.depth === 1 && this.reading === "id") {
          // The byte just kept is this one, unless the value filled the room (then it is no id).
          const whole = this.text.length < MAX_ID_BYTES;
          this.text.pop();
          const value = whole ? this.parsed() : null;
          if (typeof value === "string" || typeof value === "number") this.id = value;
          this.reading = null;
        }
        if (CLOSE.has(b)) this.depth--;
        else if (this.depth === 1) this.expectKey = true;
      } else if (b === COLON && this.depth === 1 && this.key === "id") {
        this.key = "";
        this.reading = "id";
        this.text = [];
      }
    }
  }

  private parsed(): unknown {
    try {
      return JSON.parse(Buffer.from(this.text).toString("utf8"));
    } catch {
      return null;
    }
  }
}

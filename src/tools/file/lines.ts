// Line-wise streaming over a file, in bounded memory whatever the file's size: a fixed chunk buffer,
// and of each line only its first MAX_LINE_CHARS characters are kept; the rest of a long line is
// checked and counted, never held. A line ends after its "\n" (a "\r" before it is not part of the
// text); the bytes after the last "\n", if any, are a last line. Lines are UTF-8, or Windows-1252
// when the caller found the file is not UTF-8; "\n" and "\r" are the same bytes in both.
import type { FileHandle } from "node:fs/promises";
import type { TextDecoder } from "node:util";
import { strictUtf8Decoder } from "../text-file.js";
import { decodeWindows1252 } from "../windows-1252.js";

export type LineEncoding = "utf-8" | "windows-1252";

export const MAX_LINE_CHARS = 2000;
const CHUNK_BYTES = 64 * 1024;
/** Enough bytes for MAX_LINE_CHARS characters of up to 4 bytes, plus one partial character. */
const KEEP_BYTES = MAX_LINE_CHARS * 4 + 4;

export interface Line {
  /** The line without its line ending, cut to MAX_LINE_CHARS characters. */
  text: string;
  /** Characters in the whole line, line ending excluded; more than MAX_LINE_CHARS means it was cut. */
  chars: number;
  /** Byte offset just past the line and its line ending: where the next line starts. */
  end: number;
}

/**
 * Lines from byte `start` up to byte `end` (exclusive). Throws a TypeError when a line is not valid
 * UTF-8 (in "utf-8"); the caller knows which line it was waiting for.
 */
export async function* scanLines(fh: FileHandle, start: number, end: number, signal: AbortSignal, encoding: LineEncoding = "utf-8"): AsyncGenerator<Line> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const windows1252 = encoding === "windows-1252";
  let line = new LineBuilder(windows1252);
  let pos = start;
  while (pos < end) {
    signal.throwIfAborted();
    const { bytesRead } = await fh.read(chunk, 0, Math.min(CHUNK_BYTES, end - pos), pos);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    let i = 0;
    while (i < bytesRead) {
      const nl = data.indexOf(10, i);
      if (nl === -1) {
        line.add(data.subarray(i));
        break;
      }
      line.add(data.subarray(i, nl));
      yield line.finish(pos + nl + 1);
      line = new LineBuilder(windows1252);
      i = nl + 1;
    }
    pos += bytesRead;
  }
  if (!line.isEmpty()) yield line.finish(pos);
}

export type LineSeek = { found: true; byte: number } | { found: false; lines: number };

/** Byte offset where 1-based line `target` starts, found by counting "\n" in chunks; or the file's line count. */
export async function seekLine(fh: FileHandle, target: number, size: number, signal: AbortSignal): Promise<LineSeek> {
  if (target === 1) return size > 0 ? { found: true, byte: 0 } : { found: false, lines: 0 };
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let newlines = 0;
  let lastByte: number | undefined;
  for (let pos = 0; pos < size; ) {
    signal.throwIfAborted();
    const { bytesRead } = await fh.read(chunk, 0, Math.min(CHUNK_BYTES, size - pos), pos);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, i + 1)) {
      if (++newlines < target - 1) continue;
      const byte = pos + i + 1;
      return byte < size ? { found: true, byte } : { found: false, lines: newlines };
    }
    lastByte = data[bytesRead - 1];
    pos += bytesRead;
  }
  return { found: false, lines: newlines + (lastByte === undefined || lastByte === 10 ? 0 : 1) };
}

class LineBuilder {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private chars = 0;
  private endsWithCr = false;
  /** Set once the line outgrows KEEP_BYTES: decodes the kept prefix, then checks the rest as it streams by. */
  private overflow: { decoder: TextDecoder; prefix: string } | null = null;
  private cut = false;

  /** In Windows-1252 every byte is a character and none is invalid: the kept head is all there is to decode. */
  constructor(private readonly windows1252: boolean) {}

  isEmpty(): boolean {
    return this.keptBytes === 0;
  }

  add(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.chars += this.windows1252 ? bytes.length : countCharStarts(bytes);
    this.endsWithCr = bytes[bytes.length - 1] === 13;
    const room = KEEP_BYTES - this.keptBytes;
    if (room > 0) {
      const head = bytes.subarray(0, room);
      this.kept.push(Buffer.from(head));
      this.keptBytes += head.length;
      bytes = bytes.subarray(head.length);
    }
    if (bytes.length === 0) return;
    this.cut = true;
    if (this.windows1252) return;
    if (this.overflow === null) {
      const decoder = strictUtf8Decoder();
      this.overflow = { decoder, prefix: decoder.decode(Buffer.concat(this.kept), { stream: true }) };
    }
    this.overflow.decoder.decode(bytes, { stream: true });
  }

  finish(end: number): Line {
    const chars = this.chars - (this.endsWithCr ? 1 : 0);
    let text: string;
    if (this.windows1252) {
      text = decodeWindows1252(Buffer.concat(this.kept));
      if (this.endsWithCr && !this.cut) text = text.slice(0, -1);
    } else if (this.overflow === null) {
      text = strictUtf8Decoder().decode(Buffer.concat(this.kept));
      if (this.endsWithCr) text = text.slice(0, -1);
    } else {
      this.overflow.decoder.decode();
      text = this.overflow.prefix;
    }
    // A long line's text is its kept head (up to KEEP_BYTES), longer than what is shown: the reader
    // cuts it to MAX_LINE_CHARS after redacting secrets, so no secret straddles the cut half-visible.
    return { text, chars, end };
  }
}

/** Characters (code points) in valid UTF-8 bytes: every byte that is not a continuation byte starts one. */
function countCharStarts(bytes: Buffer): number {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) if (((bytes[i] as number) & 0xc0) !== 0x80) n++;
  return n;
}

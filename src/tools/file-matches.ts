// The lines of one open file that a pattern matches, found in bounded memory whatever the file's size:
// the file is read into one reused buffer and searched a block of whole lines at a time. A file with a
// NUL byte in its first block is binary and is not searched. A line longer than the buffer is searched
// in buffer-sized pieces (a match straddling two pieces is missed) and reported once. Secret values are
// masked before the search, so a search can neither show a secret nor tell, by matching, what it holds.
import { readSync } from "node:fs";
import { redactSecrets } from "./redact.js";
import type { LinePattern } from "./line-pattern.js";
import { looksBinary } from "./text-file.js";

export const SCAN_BUFFER_BYTES = 1024 * 1024;
/** Characters of a matching line that are shown; a longer line is cut around its first match. */
export const MAX_SHOWN_CHARS = 300;
const SHOWN_BEFORE_MATCH = 60;
const FIRST_READ_BYTES = 64 * 1024;
/** Buffers of a big file searched between two turns of the event loop. */
const BLOCKS_PER_BREAK = 8;

export interface LineMatch {
  /** 1-based line number. */
  line: number;
  /** The line, its line ending removed, cut to about MAX_SHOWN_CHARS around the match. */
  text: string;
}

export interface ScanOptions {
  pattern: LinePattern;
  /** Lines before this one are not reported (a resumed search). */
  fromLine: number;
  secrets: readonly string[] | undefined;
  signal: AbortSignal;
  /** A buffer of SCAN_BUFFER_BYTES, reused from file to file. */
  buffer: Buffer;
}

/**
 * Calls `onMatch` with each matching line in order, until it returns false ("stopped") or the file ends
 * ("eof"); "binary" when the file is not text.
 */
export async function scanMatches(fd: number, options: ScanOptions, onMatch: (m: LineMatch) => boolean): Promise<"eof" | "binary" | "stopped"> {
  const { buffer, pattern } = options;
  // A first read of a few blocks: all that most source files need, and all a binary file costs.
  let { filled, eof } = fill(fd, buffer, 0, Math.min(FIRST_READ_BYTES, buffer.length));
  if (looksBinary(buffer.subarray(0, filled))) return "binary";
  let lineNumber = 1;
  let lastReported = 0;
  let blocks = 0;
  for (;;) {
    if (!eof) ({ filled, eof } = fill(fd, buffer, filled, buffer.length));
    // Not at the end, the buffer is full: search up to its last line end, or all of it when one line
    // fills it.
    let end = filled;
    if (!eof) {
      const newline = buffer.lastIndexOf(10, filled - 1);
      end = newline !== -1 ? newline + 1 : utf8Boundary(buffer, filled);
    }

    const candidate = pattern.required === null || buffer.subarray(0, end).includes(pattern.required);
    const text = candidate ? redactSecrets(buffer.toString("utf8", 0, end), options.secrets) : "";
    const block = pattern.block;
    block.lastIndex = 0;
    let countedTo = 0;
    let countedLine = lineNumber;
    for (let m = candidate ? block.exec(text) : null; m !== null; m = block.exec(text)) {
      // After a block's last "\n" comes the next block's first line, or at the end nothing at all.
      if (m.index === text.length && (text === "" || text.endsWith("\n"))) break;
      const start = m.index === 0 ? 0 : text.lastIndexOf("\n", m.index - 1) + 1;
      const stop = endOfLine(text, m.index);
      countedLine += countNewlines(text, countedTo, start);
      countedTo = start;
      if (countedLine >= options.fromLine && countedLine !== lastReported) {
        const line = text.charCodeAt(stop - 1) === 13 ? text.slice(start, stop - 1) : text.slice(start, stop);
        const at = pattern.line.exec(line)?.index;
        if (at !== undefined) {
          lastReported = countedLine;
          if (!onMatch({ line: countedLine, text: shown(line, at) })) return "stopped";
        }
      }
      if (stop >= text.length) break;
      block.lastIndex = stop + 1;
    }
    if (eof) return "eof";

    lineNumber += countNewlineBytes(buffer, end);
    buffer.copy(buffer, 0, end, filled);
    filled -= end;
    if (++blocks % BLOCKS_PER_BREAK === 0) {
      await new Promise((resolve) => setImmediate(resolve));
      options.signal.throwIfAborted();
    }
  }
}

/** Reads into buffer[from, to); a regular file reads short only at its end, so a short read is the end. */
function fill(fd: number, buffer: Buffer, from: number, to: number): { filled: number; eof: boolean } {
  const filled = from + readSync(fd, buffer, from, to - from, null);
  return { filled, eof: filled < to };
}

function endOfLine(text: string, from: number): number {
  const newline = text.indexOf("\n", from);
  return newline === -1 ? text.length : newline;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

function countNewlineBytes(buffer: Buffer, end: number): number {
  let count = 0;
  const data = buffer.subarray(0, end);
  for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, i + 1)) count++;
  return count;
}

/** The largest length up to `end` that does not cut a UTF-8 character in two. */
function utf8Boundary(buffer: Buffer, end: number): number {
  let cut = end;
  // Back over continuation bytes (10xxxxxx) to the lead byte of the last character.
  while (cut > end - 4 && cut > 0 && (buffer[cut - 1]! & 0xc0) === 0x80) cut--;
  const lead = buffer[cut - 1]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return end - (cut - 1) >= length ? end : cut - 1;
}

/** The line as shown: cut around the match when long. */
function shown(text: string, at: number): string {
  if (text.length <= MAX_SHOWN_CHARS) return text;
  let start = Math.max(0, Math.min(at - SHOWN_BEFORE_MATCH, text.length - MAX_SHOWN_CHARS));
  let stop = start + MAX_SHOWN_CHARS;
  // Never half of a surrogate pair at either edge.
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  if (isLowSurrogate(text.charCodeAt(stop))) stop--;
  return `${start > 0 ? "…" : ""}${text.slice(start, stop)}${stop < text.length ? "…" : ""}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

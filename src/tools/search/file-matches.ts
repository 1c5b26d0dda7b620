// The lines of one open file that a pattern matches, found in bounded memory whatever the file's size:
// the file is read into one reused buffer and searched a block of whole lines at a time. A file with a
// NUL byte in its first block is binary and is not searched. A line longer than the buffer is searched
// in buffer-sized pieces (a match straddling two pieces is missed) and reported once. Secret values are
// masked before the search, so a search can neither show a secret nor tell, by matching, what it holds.
// A scan can start at any line whose byte offset an earlier scan gave, so a search continued page by
// page reads each part of a file once, not once per page, and a scan of a big file pauses every few
// blocks so its caller can give the event loop a turn, then goes on from where it paused.
import { readSync } from "node:fs";
import { redactSecrets } from "../../redact.js";
import type { LinePattern } from "./line-pattern.js";
import { looksBinary } from "../text-file.js";

export const SCAN_BUFFER_BYTES = 1024 * 1024;
/** Characters of a matching line that are shown; a longer line is cut around its first match. */
export const MAX_SHOWN_CHARS = 300;
const SHOWN_BEFORE_MATCH = 60;
const FIRST_BLOCK_BYTES = 64 * 1024;
/** Buffers of a big file searched before the scan pauses. */
const BLOCKS_PER_PAUSE = 8;

/** A line of a file: its 1-based number and the byte offset where it starts. */
export interface LineStart {
  line: number;
  byte: number;
}

export interface LineMatch {
  line: number;
  /** The line, its line ending removed, cut to about MAX_SHOWN_CHARS around the match. */
  text: string;
}

export interface ScanOptions {
  pattern: LinePattern;
  /** Where to start: the file's first line, or a line an earlier scan stopped at. */
  from: LineStart;
  secrets: readonly string[] | undefined;
  /** A buffer of SCAN_BUFFER_BYTES, reused from file to file. */
  buffer: Buffer;
}

export type ScanEnd = { end: "eof" } | { end: "binary" } | { end: "stopped" | "paused"; at: LineStart };

/**
 * Calls `onMatch` with each matching line in order, until the file ends or `onMatch` returns false;
 * then the scan is "stopped" at the line it was called with. "paused": scan again from `at`.
 */
export function scanMatches(fd: number, options: ScanOptions, onMatch: (m: LineMatch) => boolean): ScanEnd {
  const { buffer, pattern } = options;
  /** File offset of buffer[0]. */
  let base = options.from.byte;
  // Line numbers are counted only when a match needs one: most blocks of most files match nothing, and
  // counting a block's lines costs more than searching it. `known` is the last line start counted to.
  let known = options.from;
  let baseLine: number | null = options.from.line;
  const lineAtBase = (): number => (baseLine ??= known.line + countNewlines(fd, known.byte, base));
  // The first block is small: all that most source files need, all a binary file costs, and all a page
  // that fills early reads. Later blocks fill the buffer.
  let want = Math.min(FIRST_BLOCK_BYTES, buffer.length);
  let { filled, eof } = fill(fd, buffer, 0, want, base);
  // A file resumed in was text where it started.
  if (base === 0 && looksBinary(buffer.subarray(0, filled))) return { end: "binary" };
  let lastReported = 0;
  let blocks = 0;
  for (;;) {
    if (!eof && filled < want) ({ filled, eof } = fill(fd, buffer, filled, want, base + filled));
    // Not at the end, `want` bytes were read: search up to the last line end, or all of them when one
    // line fills the whole buffer.
    let end = filled;
    if (!eof) {
      const newline = buffer.lastIndexOf(10, filled - 1);
      if (newline === -1 && want < buffer.length) {
        want = buffer.length;
        continue;
      }
      end = newline !== -1 ? newline + 1 : utf8Boundary(buffer, filled);
    }
    want = buffer.length;

    const candidate = pattern.required === null || buffer.subarray(0, end).includes(pattern.required);
    const text = candidate ? redactSecrets(buffer.toString("utf8", 0, end), options.secrets) : "";
    const block = pattern.block;
    block.lastIndex = 0;
    let countedTo = 0;
    /** Lines between the block's start and the candidate's. */
    let linesIn = 0;
    for (let m = candidate ? block.exec(text) : null; m !== null; m = block.exec(text)) {
      // After a block's last "\n" comes the next block's first line, or at the end nothing at all.
      if (m.index === text.length && (text === "" || text.endsWith("\n"))) break;
      const start = m.index === 0 ? 0 : text.lastIndexOf("\n", m.index - 1) + 1;
      const stop = endOfLine(text, m.index);
      linesIn += countNewlinesInText(text, countedTo, start);
      countedTo = start;
      const line = text.charCodeAt(stop - 1) === 13 ? text.slice(start, stop - 1) : text.slice(start, stop);
      const at = pattern.line.exec(line)?.index;
      const number = at === undefined ? 0 : lineAtBase() + linesIn;
      if (at !== undefined && number !== lastReported) {
        lastReported = number;
        if (!onMatch({ line: number, text: shown(line, at) })) {
          return { end: "stopped", at: { line: number, byte: base + afterNewlines(buffer, linesIn) } };
        }
      }
      if (stop >= text.length) break;
      block.lastIndex = stop + 1;
    }
    if (eof) return { end: "eof" };

    const atLineStart = buffer[end - 1] === 10;
    if (baseLine !== null) known = { line: baseLine, byte: base };
    baseLine = null;
    buffer.copy(buffer, 0, end, filled);
    base += end;
    filled -= end;
    // Only where a line starts: a line cut in pieces is reported once because one scan sees it all.
    if (++blocks >= BLOCKS_PER_PAUSE && atLineStart) return { end: "paused", at: { line: lineAtBase(), byte: base } };
  }
}

/** Reads file bytes from `position` into buffer[from, to); a regular file reads short only at its end. */
function fill(fd: number, buffer: Buffer, from: number, to: number, position: number): { filled: number; eof: boolean } {
  const filled = from + readSync(fd, buffer, from, to - from, position);
  return { filled, eof: filled < to };
}

function endOfLine(text: string, from: number): number {
  const newline = text.indexOf("\n", from);
  return newline === -1 ? text.length : newline;
}

function countNewlinesInText(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** The "\n" bytes of the file between offsets `from` and `to`, read again in small pieces. */
function countNewlines(fd: number, from: number, to: number): number {
  const piece = Buffer.allocUnsafe(Math.min(FIRST_BLOCK_BYTES, Math.max(1, to - from)));
  let count = 0;
  for (let position = from; position < to; ) {
    const bytesRead = readSync(fd, piece, 0, Math.min(piece.length, to - position), position);
    if (bytesRead === 0) break;
    const data = piece.subarray(0, bytesRead);
    for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, i + 1)) count++;
    position += bytesRead;
  }
  return count;
}

/** The offset in `buffer` just past its `n`-th "\n" (0 for n = 0): where line `n` of the block starts. */
function afterNewlines(buffer: Buffer, n: number): number {
  let offset = 0;
  for (let i = 0; i < n; i++) offset = buffer.indexOf(10, offset) + 1;
  return offset;
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

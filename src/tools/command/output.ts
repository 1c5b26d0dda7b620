// A command's output as it arrives, in bounded memory whatever its size. stdout and stderr are cleaned
// separately (each may split a character anywhere), then merged in arrival order and redacted. Output up
// to KEEP_WHOLE_BYTES is kept whole. Beyond that the whole of it streams to a spill file and memory keeps
// only its head, a ring of its latest bytes, from which the tail is cut at the end, and the first lines
// of the middle that name an error or failure (what a model needs of a long build log). The caller pauses
// its sources when write() returns false and resumes when drained() resolves: the spill file sets the pace.
// Progress for a live view is reported at most every PROGRESS_MS: what came since, or its last lines.
import { createWriteStream, type WriteStream } from "node:fs";
import { SecretMasker } from "../../redact.js";
import { headOf } from "../spill.js";
import { TextCleaner } from "./clean-text.js";

export const HEAD_BYTES = 2 * 1024;
export const TAIL_BYTES = 6 * 1024;
export const KEEP_WHOLE_BYTES = HEAD_BYTES + TAIL_BYTES;
/** Of the left-out middle, the lines that say what failed, up to this many bytes, are kept. */
const FAILING_BYTES = 2 * 1024;
const FAILING_LINE = /\b(?:error|errors|fail|failed|failure|fatal|panic|exception|assert(?:ion)?)\b/i;
const FAILING_LINE_CHARS = 240;
const SPILL_BUFFER_BYTES = 1024 * 1024;
const CUT = " …";
const PROGRESS_MS = 100;
/** Of more output than this since the last report, a report shows the end only. */
export const PROGRESS_BYTES = 2048;

export interface CaptureOptions {
  secrets?: readonly string[];
  /** Absolute path of a new file for the whole output; called once, when the output outgrows memory. */
  openSpill(): Promise<string>;
  /**
   * The cleaned, redacted output that came since the last call, at most every PROGRESS_MS; when it was
   * longer than PROGRESS_BYTES, its last lines, after `skippedBytes` left out.
   */
  onProgress?(text: string, skippedBytes: number): void;
}

export interface CapturedOutput {
  /** The whole output; or, when `omitted` is set, its head (whole lines, each ending in "\n"). */
  head: string;
  /**
   * What was left out between the head and the tail; null when the output is kept whole. `failing`:
   * the first of its lines that say what failed, numbered, and `failingLines` how many there were.
   */
  omitted: { bytes: number; lines: number; firstLine: number; tail: string; failing: { line: number; text: string }[]; failingLines: number } | null;
  /** Absolute path of the file holding the whole output, when one was written. */
  spillPath: string | null;
  /** Why the whole output could not be written, when it could not. */
  spillError: string | null;
  bytes: number;
  lines: number;
  /** Characters that were not text (invalid UTF-8, control characters). */
  nonText: number;
}

interface Spill {
  path: string | null;
  stream: WriteStream | null;
  pending: string[];
  opening: Promise<void>;
  error: string | null;
}

export class OutputCapture {
  private readonly cleaners = [new TextCleaner(), new TextCleaner()] as const;
  private readonly masker: SecretMasker;
  private whole: string[] | null = [];
  private head = { text: "", fullLines: 0 };
  private readonly ring = new ByteRing(2 * TAIL_BYTES);
  private bytes = 0;
  private newlines = 0;
  private endsWithNewline = true;
  private spill: Spill | null = null;
  private blocked = false;
  private waiting: (() => void)[] = [];
  private unreported = 0;
  /** The line being scanned for failures, its number, and what was found: lines after `scanFrom` only. */
  private scan = { partial: "", line: 1, from: 0, found: [] as { line: number; text: string }[], bytes: 0, count: 0 };
  private progressTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: CaptureOptions) {
    this.masker = new SecretMasker(options.secrets);
  }

  /** Takes a chunk of stdout (0) or stderr (1); false asks the caller to pause until drained(). */
  write(chunk: Buffer, stream: 0 | 1): boolean {
    this.accept(this.masker.push(this.cleaners[stream].push(chunk)));
    return !this.blocked;
  }

  drained(): Promise<void> {
    return this.blocked ? new Promise((resolve) => this.waiting.push(resolve)) : Promise.resolve();
  }

  async finish(): Promise<CapturedOutput> {
    for (const cleaner of this.cleaners) this.accept(this.masker.push(cleaner.end()));
    this.accept(this.masker.end());
    this.reportProgress();
    const lines = this.newlines + (this.endsWithNewline ? 0 : 1);
    const nonText = this.cleaners[0].nonText + this.cleaners[1].nonText;
    const spill = this.spill;
    if (spill === null) return { head: this.whole!.join(""), omitted: null, spillPath: null, spillError: null, bytes: this.bytes, lines, nonText };

    await spill.opening;
    const stream = spill.stream;
    if (stream !== null) await new Promise<void>((resolve) => stream.end(() => resolve()));
    const { text, fullLines } = this.head;
    const headBytes = fullLines > 0 ? Buffer.byteLength(text) + 1 : Buffer.byteLength(text) - Buffer.byteLength(CUT);
    const tail = this.tail();
    // Lines the tail shows are not repeated among the failing ones.
    const tailFrom = lines - tail.lines + 1;
    const failing = this.scan.found.filter((f) => f.line < tailFrom);
    const dropped = this.scan.found.length - failing.length;
    return {
      head: `${text}\n`,
      omitted: {
        bytes: this.bytes - headBytes - tail.bytes,
        lines: Math.max(0, lines - fullLines - tail.lines),
        firstLine: fullLines + 1,
        tail: tail.text,
        failing,
        failingLines: Math.max(failing.length, this.scan.count - dropped),
      },
      spillPath: spill.error === null ? spill.path : null,
      spillError: spill.error,
      bytes: this.bytes,
      lines,
      nonText,
    };
  }

  private accept(text: string): void {
    if (text === "") return;
    const bytes = Buffer.byteLength(text);
    this.unreported += bytes;
    if (this.options.onProgress && this.progressTimer === undefined) this.progressTimer = setTimeout(() => this.reportProgress(), PROGRESS_MS).unref();
    this.bytes += bytes;
    this.newlines += countNewlines(text);
    this.endsWithNewline = text.endsWith("\n");
    this.ring.push(text, bytes);
    this.scanFailures(text);

    if (this.whole === null) return this.toSpill(text);
    this.whole.push(text);
    if (this.bytes <= KEEP_WHOLE_BYTES) return;
    const all = this.whole.join("");
    this.whole = null;
    this.head = headOf(all, HEAD_BYTES);
    // Lines in the head are shown already.
    this.scan.from = this.head.fullLines;
    this.scan.found = this.scan.found.filter((f) => f.line > this.scan.from);
    this.scan.count = this.scan.found.length;
    this.scan.bytes = this.scan.found.reduce((n, f) => n + f.text.length, 0);
    this.startSpill(all);
  }

  /** Counts and keeps (within FAILING_BYTES) the lines that look like failures, by line number. */
  private scanFailures(text: string): void {
    const scan = this.scan;
    let at = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", at)) {
      const line = scan.partial + text.slice(at, nl);
      scan.partial = "";
      if (scan.line > scan.from && FAILING_LINE.test(line)) {
        scan.count++;
        const kept = line.length > FAILING_LINE_CHARS ? `${line.slice(0, FAILING_LINE_CHARS)}${CUT}` : line;
        if (scan.bytes + kept.length <= FAILING_BYTES) {
          scan.found.push({ line: scan.line, text: kept });
          scan.bytes += kept.length;
        }
      }
      scan.line++;
      at = nl + 1;
    }
    // A very long line is only ever tested by its start.
    if (scan.partial.length < FAILING_LINE_CHARS) scan.partial += text.slice(at, at + FAILING_LINE_CHARS);
  }

  private reportProgress(): void {
    clearTimeout(this.progressTimer);
    this.progressTimer = undefined;
    if (this.unreported === 0 || !this.options.onProgress) return;
    let latest = this.ring.latest(Math.min(this.unreported, PROGRESS_BYTES));
    let skipped = this.unreported - latest.length;
    this.unreported = 0;
    if (skipped > 0) {
      // What follows a gap starts at a line start, so a view never joins two unrelated pieces of lines.
      const newline = latest.indexOf(0x0a);
      const from = newline === -1 ? startOfCharacter(latest, 0) : newline + 1;
      skipped += from;
      latest = latest.subarray(from);
    }
    this.options.onProgress(latest.toString("utf8"), skipped);
  }

  private startSpill(first: string): void {
    this.blocked = true;
    const spill: Spill = { path: null, stream: null, pending: [first], opening: Promise.resolve(), error: null };
    this.spill = spill;
    spill.opening = this.options.openSpill().then(
      (file) => {
        spill.path = file;
        const stream = createWriteStream(file, { flags: "wx", highWaterMark: SPILL_BUFFER_BYTES });
        stream.on("error", (e) => this.failSpill(e));
        stream.on("drain", () => this.unblock());
        spill.stream = stream;
        for (const text of spill.pending.splice(0)) this.toSpill(text);
        if (!stream.writableNeedDrain) this.unblock();
      },
      (e: unknown) => this.failSpill(e),
    );
  }

  private toSpill(text: string): void {
    const spill = this.spill!;
    if (spill.error !== null) return;
    if (spill.stream === null) spill.pending.push(text);
    else if (!spill.stream.write(text)) this.blocked = true;
  }

  private failSpill(e: unknown): void {
    const spill = this.spill!;
    spill.error ??= e instanceof Error ? e.message : String(e);
    spill.stream?.destroy();
    spill.stream = null;
    spill.pending = [];
    this.unblock();
  }

  private unblock(): void {
    this.blocked = false;
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** The last TAIL_BYTES from a line start; a last line longer than that keeps its end, marked cut. */
  private tail(): { text: string; bytes: number; lines: number } {
    // The ring holds more than TAIL_BYTES, so the byte before the cut is known.
    const latest = this.ring.latest();
    let from = startOfCharacter(latest, latest.length - TAIL_BYTES);
    let startsLine = latest[from - 1] === 0x0a;
    if (!startsLine) {
      const newline = latest.indexOf(0x0a, from);
      if (newline !== -1 && newline < latest.length - 1) {
        from = newline + 1;
        startsLine = true;
      }
    }
    const text = latest.subarray(from).toString("utf8");
    return { text: startsLine ? text : `${CUT.trim()} ${text}`, bytes: latest.length - from, lines: countNewlines(text) + (text.endsWith("\n") ? 0 : 1) };
  }
}

/**
 * The latest bytes of a stream of text, in memory allocated once. Strings that stayed referenced
 * until the next garbage collection would be copied into older memory; at a gigabyte of output
 * that alone grew the process by tens of megabytes.
 */
class ByteRing {
  private readonly ring: Buffer;
  /** Room to encode the end of one piece of text: up to 3 bytes per UTF-16 unit. */
  private readonly scratch: Buffer;
  private end = 0;
  private filled = 0;

  constructor(private readonly capacity: number) {
    this.ring = Buffer.alloc(capacity);
    this.scratch = Buffer.alloc(3 * capacity);
  }

  push(text: string, bytes: number): void {
    // Only the last `capacity` bytes of a long piece can stay; no more than that many units hold them.
    const n = this.scratch.write(bytes > this.capacity ? text.slice(-this.capacity) : text);
    const kept = this.scratch.subarray(Math.max(0, n - this.capacity), n);
    const first = Math.min(kept.length, this.capacity - this.end);
    kept.copy(this.ring, this.end, 0, first);
    kept.copy(this.ring, 0, first);
    this.end = (this.end + kept.length) % this.capacity;
    this.filled = Math.min(this.capacity, this.filled + kept.length);
  }

  /** The latest `n` bytes held (all of them by default), oldest first, copied. */
  latest(n = this.filled): Buffer {
    const start = (this.end - Math.min(n, this.filled) + this.capacity) % this.capacity;
    if (start < this.end || n === 0) return Buffer.from(this.ring.subarray(start, this.end));
    return Buffer.concat([this.ring.subarray(start), this.ring.subarray(0, this.end)]);
  }
}

/** The first index at or after `i` that starts a character, not one of its continuation bytes. */
function startOfCharacter(bytes: Buffer, i: number): number {
  while (i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  return i;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

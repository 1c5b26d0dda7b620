// A command's output as it arrives, in bounded memory whatever its size. stdout and stderr are cleaned
// separately (each may split a character anywhere), then merged in arrival order and redacted. Output up
// to KEEP_WHOLE_BYTES is kept whole. Beyond that the whole of it streams to a spill file and memory keeps
// only its head, a ring of its latest bytes, from which the tail is cut at the end, and the first lines
// of the middle that name an error or failure (what a model needs of a long build log): of lines alike
// but for their paths and numbers (one compiler error in a hundred files) the first few, and a count of
// the rest. The head and the tail are short because a failing build's log is paid for as new, uncached
// tokens on every request until it is folded, and the whole of it is one read_file away. The caller pauses
// its sources when write() returns false and resumes when drained() resolves: the spill file sets the pace.
// Progress for a live view is reported at most every PROGRESS_MS: what came since, or its last lines.
import { createWriteStream, type WriteStream } from "node:fs";
import { SecretMasker } from "../../redact.js";
import { headOf } from "../spill.js";
import { TextCleaner } from "./clean-text.js";

export const HEAD_BYTES = 1024;
export const TAIL_BYTES = 3 * 1024;
/** An output this long is short enough to read whole; past it, head, failing lines and tail. */
export const KEEP_WHOLE_BYTES = 8 * 1024;
/** Of the left-out middle, the lines that say what failed, up to this many bytes, are kept. */
const FAILING_BYTES = 2 * 1024;
const FAILING_LINE = /\b(?:error|errors|fail|failed|failure|fatal|panic|exception|assert(?:ion)?)\b/i;
const FAILING_LINE_CHARS = 240;
/** Failing lines of one shape shown before the rest of that shape are only counted. */
const ALIKE_SHOWN = 2;
/**
 * The latest failing lines whose numbers are remembered, so those the tail shows are not counted as
 * left out: a failing line takes at least this many of the tail's bytes ("fail\n" is five).
 */
const RECENT_FAILING = Math.ceil(TAIL_BYTES / 4);
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
  /** Every piece of the cleaned, redacted output, as it comes: a background job's log. */
  onText?(text: string): void;
}

export interface CapturedOutput {
  /** The whole output; or, when `omitted` is set, its head (whole lines, each ending in "\n"). */
  head: string;
  /**
   * What was left out between the head and the tail; null when the output is kept whole. `failing`:
   * the first of its lines that say what failed, numbered, each with how many later left-out lines
   * were alike (`alike`, not shown), and `failingLines` how many failing lines it had in all.
   */
  omitted: { bytes: number; lines: number; firstLine: number; tail: string; failing: FailingLine[]; failingLines: number } | null;
  /** Absolute path of the file holding the whole output, when one was written. */
  spillPath: string | null;
  /** Why the whole output could not be written, when it could not. */
  spillError: string | null;
  bytes: number;
  lines: number;
  /** Characters that were not text (invalid UTF-8, control characters). */
  nonText: number;
}

export interface FailingLine {
  line: number;
  text: string;
  alike: number;
}

/** The failing lines found so far after the head, and what is needed to count them exactly at the end. */
class FailingScan {
  private partial = "";
  private line = 1;
  readonly found: FailingLine[] = [];
  private bytes = 0;
  /** Failing lines after the head, shown or not. */
  count = 0;
  /** Of each shape shown, its latest shown line (which counts the alike ones after it) and how many are shown. */
  private readonly shapes = new Map<string, { last: FailingLine; shown: number }>();
  /** The latest failing lines' numbers, and the shown line that counted each as alike (or null), in a ring. */
  private readonly recent: { line: number; countedBy: FailingLine | null }[] = [];
  private recentAt = 0;

  constructor(private readonly from: number) {}

  push(text: string): void {
    let at = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", at)) {
      const line = this.partial + text.slice(at, nl);
      this.partial = "";
      if (this.line > this.from && FAILING_LINE.test(line)) this.take(line);
      this.line++;
      at = nl + 1;
    }
    // A very long line is only ever tested by its start.
    if (this.partial.length < FAILING_LINE_CHARS) this.partial += text.slice(at, at + FAILING_LINE_CHARS);
  }

  private take(line: string): void {
    this.count++;
    const shape = shapeOf(line);
    const seen = this.shapes.get(shape);
    let countedBy: FailingLine | null = null;
    if (seen !== undefined && seen.shown >= ALIKE_SHOWN) {
      seen.last.alike++;
      countedBy = seen.last;
    } else {
      const text = line.length > FAILING_LINE_CHARS ? `${line.slice(0, FAILING_LINE_CHARS)}${CUT}` : line;
      if (this.bytes + text.length <= FAILING_BYTES) {
        const kept = { line: this.line, text, alike: 0 };
        this.found.push(kept);
        this.bytes += text.length;
        this.shapes.set(shape, { last: kept, shown: (seen?.shown ?? 0) + 1 });
      }
    }
    const entry = { line: this.line, countedBy };
    if (this.recent.length < RECENT_FAILING) this.recent.push(entry);
    else this.recent[this.recentAt] = entry;
    this.recentAt = (this.recentAt + 1) % RECENT_FAILING;
  }

  /** The failing lines before line `tailFrom` (the tail shows the rest): those shown, and how many there were. */
  before(tailFrom: number): { failing: FailingLine[]; failingLines: number } {
    const inTail = this.recent.filter((r) => r.line >= tailFrom);
    const failing = this.found.filter((f) => f.line < tailFrom).map((f) => ({ ...f }));
    const byLine = new Map(failing.map((f) => [f.line, f]));
    for (const { countedBy } of inTail) {
      const counted = countedBy && byLine.get(countedBy.line);
      if (counted) counted.alike--;
    }
    return { failing, failingLines: this.count - inTail.length };
  }
}

/** A line with its paths and numbers taken out: one compiler error reported in many files has one shape. */
function shapeOf(line: string): string {
  return line.replace(/\S*[/\\]\S*/g, "/").replace(/\b\d+\b/g, "#");
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
  /** Set once the output outgrows KEEP_WHOLE_BYTES: only then is there a middle to find failures in. */
  private scan: FailingScan | null = null;
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
    const { failing, failingLines } = this.scan!.before(lines - tail.lines + 1);
    return {
      head: `${text}\n`,
      omitted: {
        bytes: this.bytes - headBytes - tail.bytes,
        lines: Math.max(0, lines - fullLines - tail.lines),
        firstLine: fullLines + 1,
        tail: tail.text,
        failing,
        failingLines,
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
    this.options.onText?.(text);
    const bytes = Buffer.byteLength(text);
    this.unreported += bytes;
    if (this.options.onProgress && this.progressTimer === undefined) this.progressTimer = setTimeout(() => this.reportProgress(), PROGRESS_MS).unref();
    this.bytes += bytes;
    this.newlines += countNewlines(text);
    this.endsWithNewline = text.endsWith("\n");
    this.ring.push(text, bytes);
    if (this.whole === null) {
      this.scan!.push(text);
      return this.toSpill(text);
    }
    this.whole.push(text);
    if (this.bytes <= KEEP_WHOLE_BYTES) return;
    const all = this.whole.join("");
    this.whole = null;
    this.head = headOf(all, HEAD_BYTES);
    // Lines in the head are shown already; the scan starts after them, over what came so far.
    this.scan = new FailingScan(this.head.fullLines);
    this.scan.push(all);
    this.startSpill(all);
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

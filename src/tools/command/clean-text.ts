// One output stream of a command made into text the model can read: bytes decoded as UTF-8 (invalid
// sequences become U+FFFD, a run of them one), terminal escape sequences (colours, cursor moves, window
// titles) removed, other control characters dropped, and line endings made "\n". Chunks may split a
// character, an escape sequence or a "\r\n" anywhere: the unfinished end is held back until the next
// chunk or the end of the stream.
import { StringDecoder } from "node:string_decoder";

const ESCAPE_SEQUENCE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[ -/]*[0-~]|\u009b[0-?]*[ -/]*[@-~]/g;
/** An escape sequence that the next chunk could still complete. */
const UNFINISHED_ESCAPE = /^(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?|[ -/]*)|\u009b[0-?]*[ -/]*)$/;
/** Longer than this, an unfinished sequence is taken for garbage rather than held back. */
const MAX_ESCAPE_CHARS = 256;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const NEEDS_WORK = /[\x00-\x08\x0b-\x1f\x7f-\x9f\uFFFD]/;
const REPLACEMENTS = /\uFFFD+/g;

export class TextCleaner {
  private readonly decoder = new StringDecoder("utf8");
  private held = "";
  private afterReplacement = false;
  /** Characters that were not text: invalid UTF-8 and stray control characters. */
  nonText = 0;

  push(chunk: Buffer): string {
    return this.clean(this.held + this.decoder.write(chunk), false);
  }

  end(): string {
    return this.clean(this.held + this.decoder.end(), true);
  }

  private clean(text: string, last: boolean): string {
    this.held = "";
    if (!NEEDS_WORK.test(text)) {
      if (text !== "") this.afterReplacement = false;
      return text;
    }
    if (!last) text = this.holdUnfinished(text);
    let out = text.replace(ESCAPE_SEQUENCE, "").replace(/\r\n?/g, "\n");
    out = out.replace(CONTROL, () => {
      this.nonText++;
      return "";
    });
    out = out.replace(REPLACEMENTS, (run, offset: number) => {
      this.nonText += run.length;
      // A run cut by a chunk boundary stays one character.
      return offset === 0 && this.afterReplacement ? "" : "\uFFFD";
    });
    if (out !== "") this.afterReplacement = out.endsWith("\uFFFD");
    return out;
  }

  /** Moves an unfinished escape sequence or a final "\r" from the end of `text` into `held`. */
  private holdUnfinished(text: string): string {
    // The last ESC may be the first half of the ESC \ that ends a sequence begun at the one before.
    const last = Math.max(text.lastIndexOf("\x1b"), text.lastIndexOf("\u009b"));
    const before = last > 0 ? text.lastIndexOf("\x1b", last - 1) : -1;
    for (const start of [before, last]) {
      if (start >= 0 && text.length - start <= MAX_ESCAPE_CHARS && UNFINISHED_ESCAPE.test(text.slice(start))) {
        this.held = text.slice(start);
        return text.slice(0, start);
      }
    }
    if (text.endsWith("\r")) {
      this.held = "\r";
      return text.slice(0, -1);
    }
    return text;
  }
}

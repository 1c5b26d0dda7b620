// A grep pattern compiled for searching text a block of lines at a time. Semantics are per line: a line
// (without its "\n" or "\r\n") matches when the expression matches inside it, `^` and `$` are its
// start and end, and no match spans two lines. Searching a whole block with one global, multi-line
// expression finds candidate lines far faster than testing every line; each candidate is then
// confirmed on its line alone, since an expression that can match a newline (`\s`, `[^x]`) may find a
// candidate that no single line holds, and multi-line `^`/`$` also match around a lone "\r".
import { ToolError } from "../types.js";

export interface LinePattern {
  /** Flags g and m: finds candidates in a block of whole lines. */
  block: RegExp;
  /** The same expression without g and m: confirms a candidate on its line alone. */
  line: RegExp;
  /**
   * Bytes every match contains, when the pattern starts with enough plain text: a block without them
   * cannot match, and is skipped without being decoded (searching bytes is many times faster).
   */
  required: Buffer | null;
}

/** Shorter literals are too common to skip much. */
const MIN_REQUIRED_CHARS = 3;

export function compileLinePattern(source: string, ignoreCase: boolean): LinePattern {
  const flags = ignoreCase ? "i" : "";
  // Unicode mode first, so `\p{L}` and astral characters mean what they say; patterns written for
  // other engines (`\-`, a lone `{`) are only valid without it.
  try {
    return compile(source, `${flags}u`);
  } catch {
    // tried again below, where the error is reported
  }
  try {
    return compile(source, flags);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // V8 writes "Invalid regular expression: /<source>/<flags>: <why>"; the model knows its source.
    const why = /^Invalid regular expression: \/[\s\S]*\/[a-z]*: (.*)$/.exec(message)?.[1] ?? message;
    throw new ToolError(`the pattern is not a valid JavaScript regular expression (${why}). Fix it and call grep again; to match one of ( ) [ ] { } . * + ? ^ $ | \\ literally, put a \\ before it`);
  }
}

function compile(source: string, flags: string): LinePattern {
  const required = flags.includes("i") ? null : requiredText(source);
  return { block: new RegExp(source, `gm${flags}`), line: new RegExp(source, flags), required: required === null ? null : Buffer.from(required) };
}

/**
 * The plain ASCII text the pattern starts with (after a leading `^`, skipping `\b` and `\B`, which match
 * no characters), if every match must contain it: not when the pattern has an alternative (`|`), and
 * without a last character that a quantifier makes optional or repeats.
 */
function requiredText(source: string): string | null {
  if (source.includes("|")) return null;
  let text = "";
  for (let i = source[0] === "^" ? 1 : 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (next === "b" || next === "B") {
        i++;
        continue;
      }
      if (!/^[!-/:-@[-`{-~]$/.test(next)) break;
      text += next;
      i++;
    } else if (/^[\x20-\x7e]$/.test(c) && !"^$.*+?()[]{}".includes(c)) {
      text += c;
    } else {
      if ("*+?{".includes(c)) text = text.slice(0, -1);
      break;
    }
  }
  return text.length >= MIN_REQUIRED_CHARS ? text : null;
}

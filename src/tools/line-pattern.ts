// A grep pattern compiled for searching text a block of lines at a time. Semantics are per line: a line
// (without its "\n" or "\r\n") matches when the expression matches inside it, `^` and `$` are its
// start and end, and no match spans two lines. Searching a whole block with one global, multi-line
// expression finds candidate lines far faster than testing every line; each candidate is then
// confirmed on its line alone, since an expression that can match a newline (`\s`, `[^x]`) may find a
// candidate that no single line holds, and multi-line `^`/`$` also match around a lone "\r".
import { ToolError } from "./types.js";

export interface LinePattern {
  /** Flags g and m: finds candidates in a block of whole lines. */
  block: RegExp;
  /** The same expression without g and m: confirms a candidate on its line alone. */
  line: RegExp;
}

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
    throw new ToolError(
      `the pattern is not a valid JavaScript regular expression (${why}). Fix it and call grep again; to match one of ( ) [ ] { } . * + ? ^ $ | \\ literally, put a \\ before it`,
    );
  }
}

function compile(source: string, flags: string): LinePattern {
  return { block: new RegExp(source, `gm${flags}`), line: new RegExp(source, flags) };
}

// Token estimate for the simulator. Contract: a deterministic tokenizer that turns text into a token
// SEQUENCE (end offsets into the text), so two prompts can be compared token by token for the prefix
// cache, and whose counts follow DeepSeek's published rule of thumb ("1 English character ≈ 0.3 token,
// 1 Chinese character ≈ 0.6 token"). It is not DeepSeek V4's tokenizer: no maintained npm package ships
// that one, and a V3 tokenizer has not been verified against V4, so exact counts would be a false promise.
//
// The pieces, scanning left to right (pieces never span two of these classes):
//   - a letter run (ASCII, Latin-1/extended, Greek, Cyrillic) with at most one leading space joined to it,
//     cut every 4 characters (" quick" → " qui" + "ck": ≈0.3 token/char on English prose);
//   - an ASCII punctuation run, with at most one leading space joined to it, cut every 2 characters
//     (JSON's `":`, `",` and " =" are one token, as in real BPE vocabularies);
//   - a digit run (no leading space), cut every 3 digits;
//   - other spaces/tabs, cut every 4; newline runs (\n, \r), cut every 2;
//   - a CJK/kana/hangul/fullwidth run, cut in pieces of 2,2,1 characters (3 tokens per 5 chars = 0.6);
//   - anything else (emoji, symbols): one token per code point.
// Every piece depends only on the text before it and its own run, so a text's tokens are a prefix of the
// tokens of any extension of it, except for the last piece, which may grow. The template tokenizes each
// segment on its own to avoid even that.
// Speed matters: it runs on every request and requests can be a megabyte, so it is one charCodeAt loop.

const LETTER = 1;
const DIGIT = 2;
const SPACE = 3;
const NEWLINE = 4;
const CJK = 5;
const PUNCT = 6;
const OTHER = 7;

function classOf(c: number): number {
  if (c < 128) {
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) return LETTER;
    if (c >= 48 && c <= 57) return DIGIT;
    if (c === 32 || c === 9) return SPACE;
    if (c === 10 || c === 13) return NEWLINE;
    if (c < 32 || c === 127) return OTHER;
    return PUNCT;
  }
  if ((c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7) || (c >= 0x370 && c <= 0x52f)) return LETTER;
  if (
    (c >= 0x3040 && c <= 0x30ff) || // kana
    (c >= 0x3400 && c <= 0x4dbf) || // CJK ext A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified
    (c >= 0xac00 && c <= 0xd7af) || // hangul
    (c >= 0xf900 && c <= 0xfaff) || // CJK compatibility
    (c >= 0xff00 && c <= 0xffef) || // fullwidth forms
    (c >= 0x3000 && c <= 0x303f) // CJK punctuation
  )
    return CJK;
  return OTHER;
}

const CJK_CYCLE = [2, 2, 1] as const;

/**
 * Appends the end offsets (exclusive, relative to `base`) of the tokens of `text` to `out`.
 * Returns `out` so callers can build one sequence from several segments.
 */
export function tokenEnds(text: string, out: number[] = [], base = 0): number[] {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const cls = classOf(c);
    // One leading space belongs to the word or punctuation after it, as in BPE pre-tokenizers
    // (" hello", " =", " {"); digits take no space.
    const nextCls = cls === SPACE && c === 32 && i + 1 < n ? classOf(text.charCodeAt(i + 1)) : 0;
    if (nextCls === LETTER || nextCls === PUNCT) {
      const width = nextCls === LETTER ? 4 : 2;
      let j = i + 2;
      while (j < n && classOf(text.charCodeAt(j)) === nextCls) j++;
      for (let k = i + width; k < j; k += width) out.push(base + k);
      out.push(base + j);
      i = j;
      continue;
    }
    if (cls === OTHER) {
      // A surrogate pair is one code point, one token.
      const step = c >= 0xd800 && c <= 0xdbff && i + 1 < n ? 2 : 1;
      i += step;
      out.push(base + i);
      continue;
    }
    let j = i + 1;
    while (j < n && classOf(text.charCodeAt(j)) === cls) {
      // A space run stops before the space that starts a word, so that space joins the word.
      if (cls === SPACE && text.charCodeAt(j) === 32 && j + 1 < n) {
        const after = classOf(text.charCodeAt(j + 1));
        if (after === LETTER || after === PUNCT) break;
      }
      j++;
    }
    if (cls === CJK) {
      let k = i;
      let m = 0;
      while (k < j) {
        k = Math.min(j, k + CJK_CYCLE[m % 3]!);
        m++;
        out.push(base + k);
      }
    } else {
      const width = cls === LETTER || cls === SPACE ? 4 : cls === DIGIT ? 3 : 2; // NEWLINE, PUNCT: 2
      for (let k = i + width; k < j; k += width) out.push(base + k);
      out.push(base + j);
    }
    i = j;
  }
  return out;
}

/** Number of tokens in `text`. */
export function countTokens(text: string): number {
  return tokenEnds(text).length;
}

/** The tokens of `text` as strings (for tests and debugging; the hot paths use offsets). */
export function tokenize(text: string): string[] {
  const ends = tokenEnds(text);
  const pieces: string[] = [];
  let start = 0;
  for (const end of ends) {
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** The longest prefix of `text` that is at most `maxTokens` tokens, cut at a token boundary. */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return "";
  const ends = tokenEnds(text);
  if (ends.length <= maxTokens) return text;
  return text.slice(0, ends[maxTokens - 1]);
}

// The front matter of a Markdown file hel reads for its settings (a named agent, a skill, a command):
// the lines between a first line `---` and the next `---`, as flat `key: value` pairs, and the text
// after them as the body. A value is a plain or quoted string, a `[a, b]` list, or the `- item` lines
// under a key with nothing after its colon: the small part of YAML such files use. Anything else (a
// nested map, a block scalar, a key twice) is an error naming its line, so a file is never half-read.
// A file that does not open with `---` has no front matter: all of it is the body. Pure.

export class FrontMatterError extends Error {
  override name = "FrontMatterError";
}

export interface FrontMatter {
  data: Record<string, string | string[]>;
  body: string;
}

const KEY_LINE = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*)|\s*)$/;
const ITEM_LINE = /^\s*-(?:\s+(.*)|\s*)$/;

export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { data: Object.create(null) as Record<string, string | string[]>, body: text };
  const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (close === -1) throw new FrontMatterError("the front matter opened by --- on line 1 has no closing --- line");
  const data = Object.create(null) as Record<string, string | string[]>;
  // The key whose value is the `- item` lines that follow it.
  let listKey: string | null = null;
  for (let i = 1; i < close; i++) {
    const line = lines[i]!;
    const at = `line ${i + 1}`;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const item = ITEM_LINE.exec(line);
    if (item && listKey !== null) {
      const list = data[listKey];
      const value = scalar(item[1] ?? "", at);
      if (Array.isArray(list)) list.push(value);
      else data[listKey] = [value];
      continue;
    }
    const pair = KEY_LINE.exec(line);
    if (!pair) throw new FrontMatterError(`${at} is not a "key: value" line`);
    const [, key, raw = ""] = pair as unknown as [string, string, string | undefined];
    if (key in data) throw new FrontMatterError(`${at} gives ${key} a second time`);
    const value = withoutComment(raw).trim();
    listKey = null;
    if (value === "") {
      // A list if `- item` lines follow, else an empty string.
      data[key] = "";
      listKey = key;
    } else if (value.startsWith("[")) {
      data[key] = flowList(value, at);
    } else if (value === "|" || value === ">" || /^[|>][-+]?$/.test(value)) {
      throw new FrontMatterError(`${at}: a block of text (${value}) is not supported; write the value on one line`);
    } else {
      data[key] = scalar(value, at);
    }
  }
  return { data, body: lines.slice(close + 1).join("\n") };
}

/** A value loses a ` # comment` after it; a quoted one keeps what its quotes hold. */
function withoutComment(raw: string): string {
  const text = raw.trim();
  if (text.startsWith('"') || text.startsWith("'") || text.startsWith("[")) return /^(.*["'\]])\s+#[^"'\]]*$/.exec(text)?.[1] ?? text;
  const hash = commentStart(text);
  return hash === -1 ? text : text.slice(0, hash);
}

/** Where a ` #` or tab-`#` comment starts; -1 for none. A loop, not /\s#/: that search, run cold on every value of hundreds of files, cost more than their reading. */
function commentStart(text: string): number {
  for (let i = text.indexOf("#"); i > 0; i = text.indexOf("#", i + 1)) if (text[i - 1] === " " || text[i - 1] === "\t") return i - 1;
  return -1;
}

function scalar(raw: string, at: string): string {
  const text = withoutComment(raw).trim();
  if (text.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(text)) throw new FrontMatterError(`${at}: the quoted value is not closed by a " at the end`);
    try {
      return JSON.parse(text) as string;
    } catch {
      throw new FrontMatterError(`${at}: the quoted value has an escape that is not \\", \\\\, \\n, \\t or \\uXXXX`);
    }
  }
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) throw new FrontMatterError(`${at}: the quoted value is not closed by a ' at the end`);
    return text.slice(1, -1).replaceAll("''", "'");
  }
  return text;
}

/** `[a, "b, c", 'd']`: the items, each a plain or quoted string. */
function flowList(text: string, at: string): string[] {
  if (!text.endsWith("]")) throw new FrontMatterError(`${at}: the list is not closed by a ] at the end`);
  const inner = text.slice(1, -1).trim();
  if (inner === "") return [];
  const items: string[] = [];
  let start = 0;
  let quote: string | null = null;
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === "," || c === undefined) {
      const item = inner.slice(start, i).trim();
      if (item === "") throw new FrontMatterError(`${at}: the list has an empty item`);
      items.push(scalar(item, at));
      start = i + 1;
    }
  }
  if (quote) throw new FrontMatterError(`${at}: a quoted item of the list is not closed`);
  return items;
}

// Front matter of a Markdown file a project or a user writes for hel (a skill, a command, an agent):
// the YAML-like block between a first line `---` and the next `---` line, and the text after it. Only
// the part of YAML such files use is read: `key: value` (quotes optional), `key: [a, b]`, a `key:`
// followed by `- item` lines, a `>` or `|` block, and indented lines that go on a plain value. Anything
// else in the block throws an Error whose message says which line, so the caller can name the file.

export function parseFrontMatter(text: string): { data: Record<string, string | string[]>; body: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { data: {}, body: text };
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (end === -1) throw new Error("the front matter has no closing --- line");
  const data: Record<string, string | string[]> = {};
  /** The key whose value the indented lines that follow go on, and how they join it. */
  let open: { key: string; join: " " | "\n" | "list" } | null = null;
  for (let i = 1; i < end; i++) {
    const line = lines[i]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) {
      if (open?.join === "\n" && line.trim() === "") data[open.key] += "\n";
      continue;
    }
    if (/^\s/.test(line) && open) {
      const item = /^\s*-\s+(.*)$/.exec(line);
      if (open.join === "list" || (item && data[open.key] === "")) {
        if (!item) throw new Error(`line ${i + 1} of the front matter is not a "- item" of ${open.key}`);
        data[open.key] = [...(Array.isArray(data[open.key]) ? (data[open.key] as string[]) : []), unquote(item[1]!)];
        open = { key: open.key, join: "list" };
      } else {
        const value = data[open.key] as string;
        data[open.key] = value === "" ? line.trim() : `${value}${open.join}${line.trim()}`;
      }
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+)\s*:(?:\s+(.*))?$/.exec(line.trimEnd());
    if (!pair) throw new Error(`line ${i + 1} of the front matter is not "key: value"`);
    const key = pair[1]!;
    const value = (pair[2] ?? "").trim();
    if (value === "" || value === ">" || value === "|" || value === ">-" || value === "|-") {
      data[key] = "";
      open = { key, join: value.startsWith("|") ? "\n" : " " };
    } else if (value.startsWith("[") && value.endsWith("]")) {
      data[key] = value.slice(1, -1).split(",").map((v) => unquote(v.trim())).filter((v) => v !== "");
      open = null;
    } else {
      data[key] = unquote(value);
      open = { key, join: " " };
    }
  }
  for (const [key, value] of Object.entries(data)) if (typeof value === "string") data[key] = value.trimEnd();
  return { data, body: lines.slice(end + 1).join("\n") };
}

function unquote(value: string): string {
  const quoted = /^"(.*)"$/.exec(value) ?? /^'(.*)'$/.exec(value);
  if (!quoted) return value;
  return value.startsWith('"') ? quoted[1]!.replace(/\\"/g, '"').replace(/\\\\/g, "\\") : quoted[1]!.replace(/''/g, "'");
}

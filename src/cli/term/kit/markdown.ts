// An answer's markdown as a terminal shows it: headings, emphasis, inline code, lists, quotes,
// tables and highlighted code blocks, without the markup characters. marked parses; this walks its
// tokens. Loaded only when an answer is printed to a terminal, never before the first request.
import { lexer, type Token, type Tokens } from "marked";
import { highlightCode } from "./highlight.js";
import { terminalSafe, visibleWidth, type Style } from "./style.js";

export interface MarkdownOptions {
  style: Style;
  /** Columns of the terminal, for rules. */
  width: number;
}

/** The rendered text, blocks separated by a blank line, with no line break at the end. */
export function renderMarkdown(markdown: string, options: MarkdownOptions): string {
  return blocks(lexer(terminalSafe(markdown)), options).join("\n\n");
}

function blocks(tokens: readonly Token[], o: MarkdownOptions): string[] {
  return tokens.map((t) => block(t, o)).filter((b): b is string => b !== null);
}

function block(token: Token, o: MarkdownOptions): string | null {
  const { style } = o;
  const t = token as Tokens.Generic;
  switch (token.type) {
    case "space":
    case "def":
      return null;
    case "heading": {
      const { depth, tokens } = token as Tokens.Heading;
      const text = inline(tokens, o);
      if (!style.color) return `${"#".repeat(depth)} ${text}`;
      return depth === 1 ? style.bold(style.underline(text)) : style.bold(text);
    }
    case "paragraph":
      return inline((token as Tokens.Paragraph).tokens, o);
    case "text":
      return t.tokens ? inline(t.tokens, o) : String(t.text);
    case "code":
      return codeBlock(token as Tokens.Code, o);
    case "blockquote":
      return prefixLines(blocks((token as Tokens.Blockquote).tokens, o).join("\n\n"), style.dim("│ "), style.dim("│ "));
    case "list":
      return list(token as Tokens.List, o);
    case "hr":
      return style.dim("─".repeat(Math.max(3, Math.min(o.width, 40))));
    case "table":
      return table(token as Tokens.Table, o);
    default:
      return String(t.raw).trimEnd();
  }
}

function codeBlock(token: Tokens.Code, o: MarkdownOptions): string {
  const language = token.lang?.trim().split(/\s+/)[0];
  return prefixLines(highlightCode(token.text, language, o.style), "  ", "  ");
}

function list(token: Tokens.List, o: MarkdownOptions): string {
  const start = typeof token.start === "number" ? token.start : 1;
  const width = token.ordered ? String(start + token.items.length - 1).length + 1 : 1;
  const items = token.items.map((item, i) => {
    const marker = token.ordered ? `${start + i}.`.padStart(width) : "•";
    const check = item.task ? `${item.checked ? "[x]" : "[ ]"} ` : "";
    const body = blocks(
      item.tokens.filter((t) => t.type !== "checkbox"),
      o,
    ).join(item.loose ? "\n\n" : "\n");
    return prefixLines(check + body, `${o.style.cyan(marker)} `, " ".repeat(width + 1));
  });
  return items.join(token.loose ? "\n\n" : "\n");
}

function table(token: Tokens.Table, o: MarkdownOptions): string {
  const { style } = o;
  const header = token.header.map((cell) => style.bold(inline(cell.tokens, o)));
  const rows = token.rows.map((row) => row.map((cell) => inline(cell.tokens, o)));
  const widths = header.map((h, i) => Math.max(visibleWidth(h), ...rows.map((r) => visibleWidth(r[i] ?? ""))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => pad(cell, widths[i] ?? 0, token.align[i] ?? null))
      .join(style.dim(" │ "))
      .trimEnd();
  const rule = style.dim(widths.map((w) => "─".repeat(w)).join("─┼─"));
  return [line(header), rule, ...rows.map(line)].join("\n");
}

function pad(text: string, width: number, align: "center" | "left" | "right" | null): string {
  const room = Math.max(0, width - visibleWidth(text));
  if (align === "right") return " ".repeat(room) + text;
  if (align === "center") return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(Math.ceil(room / 2));
  return text + " ".repeat(room);
}

function inline(tokens: readonly Token[], o: MarkdownOptions): string {
  const { style } = o;
  return tokens
    .map((token) => {
      const t = token as Tokens.Generic;
      switch (token.type) {
        case "text":
          return t.tokens ? inline(t.tokens, o) : String(t.text);
        case "escape":
          return (token as Tokens.Escape).text;
        case "strong":
          return style.bold(inline((token as Tokens.Strong).tokens, o));
        case "em":
          return style.italic(inline((token as Tokens.Em).tokens, o));
        case "del":
          return style.strike(inline((token as Tokens.Del).tokens, o));
        case "codespan": {
          const { text } = token as Tokens.Codespan;
          return style.color ? style.cyan(text) : `\`${text}\``;
        }
        case "link": {
          const link = token as Tokens.Link;
          const text = style.underline(inline(link.tokens, o));
          return link.text === link.href ? text : `${text} ${style.dim(`(${link.href})`)}`;
        }
        case "image": {
          const image = token as Tokens.Image;
          return `[image: ${image.text}] ${style.dim(`(${image.href})`)}`;
        }
        case "br":
          return "\n";
        default:
          return String(t.raw);
      }
    })
    .join("");
}

/** `first` before the first line, `rest` before every other non-empty one. */
function prefixLines(text: string, first: string, rest: string): string {
  return text
    .split("\n")
    .map((line, i) => (i === 0 ? first + line : line === "" ? line : rest + line))
    .join("\n");
}

// Colours and text attributes for the terminal, as plain functions: ANSI when the stream is a
// terminal and NO_COLOR is not set, the identity otherwise, so every view is written once and
// tested as plain text. Also what makes model and file text safe to print on a terminal.
import { groupDigits } from "../../../format.js";
export interface Style {
  readonly color: boolean;
  bold(text: string): string;
  dim(text: string): string;
  italic(text: string): string;
  underline(text: string): string;
  strike(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  magenta(text: string): string;
  cyan(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => (text === "" ? "" : `\x1b[${open}m${text}\x1b[${close}m`);

export const ANSI: Style = {
  color: true,
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  italic: sgr(3, 23),
  underline: sgr(4, 24),
  strike: sgr(9, 29),
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  blue: sgr(34, 39),
  magenta: sgr(35, 39),
  cyan: sgr(36, 39),
};

const same = (text: string) => text;
export const PLAIN: Style = { color: false, bold: same, dim: same, italic: same, underline: same, strike: same, red: same, green: same, yellow: same, blue: same, magenta: same, cyan: same };

/** ANSI for a terminal, unless NO_COLOR is set (https://no-color.org); plain for a file or a pipe. */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  return stream.isTTY && !env.NO_COLOR ? ANSI : PLAIN;
}

const ANSI_SEQUENCE = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

/** The columns `text` takes on screen: its characters without ANSI sequences. */
export function visibleWidth(text: string): number {
  return Array.from(text.replace(ANSI_SEQUENCE, "")).length;
}

/** Plain `text` cut to `max` characters, the last of them "…". */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `text` cut to `width` columns with "…", counting only visible characters; styles are closed. */
export function fitWidth(text: string, width: number): string {
  if (visibleWidth(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const part of text.split(/(\x1b\[[0-9;?]*[ -/]*[@-~])/)) {
    if (part.startsWith("\x1b[")) {
      out += part;
      continue;
    }
    for (const ch of part) {
      if (used >= width - 1) return `${out}…${out.includes("\x1b[") ? "\x1b[0m" : ""}`;
      out += ch;
      used++;
    }
  }
  return out;
}

/** The columns a line hel draws may take on a terminal `columns` wide: one is left, so none wraps. */
export function rowWidth(columns: number | undefined): number {
  return Math.max(20, (columns || 80) - 1);
}

/**
 * Plain `text` as rows of at most `width` columns, the later ones after `indent`: broken between the
 * parts of a " · " list when it is one, else (and inside a part too wide for a row) between words,
 * and inside a word only when it alone is wider than a row. Nothing is left out.
 */
export function wrapLine(text: string, width: number, indent = "  "): string[] {
  const rows: string[] = [];
  let row = "";
  const room = () => width - (rows.length > 0 ? indent.length : 0);
  const push = () => {
    rows.push(rows.length > 0 ? indent + row : row);
    row = "";
  };
  const place = (piece: string, separator: string): void => {
    const joined = row === "" ? piece : row + separator + piece;
    if (Array.from(joined).length <= room()) return void (row = joined);
    if (row !== "") push();
    if (Array.from(piece).length <= room()) return void (row = piece);
    if (separator !== " " && piece.includes(" ")) return piece.split(" ").forEach((word) => place(word, " "));
    let rest = Array.from(piece);
    while (rest.length > room()) {
      row = rest.slice(0, room()).join("");
      rest = rest.slice(room());
      push();
    }
    row = rest.join("");
  };
  const separator = text.includes(" · ") ? " · " : " ";
  for (const part of text.split(separator)) place(part, separator);
  if (row !== "" || rows.length === 0) push();
  return rows;
}

/**
 * Text from the model, a file or a command, made safe to show: control characters (escape sequences
 * above all, which could move the cursor, retitle the window, clear the screen or write the clipboard,
 * and their one-byte C1 forms) become visible "?", tabs become spaces.
 */
export function terminalSafe(text: string): string {
  return text
    .replace(/\r\n/g, "\n")
    .replace(/\t/g, "  ")
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "?");
}

/** Characters of an error message hel prints: a longer one keeps its start and its end (what to do). */
const MAX_ERROR_CHARS = 2000;
const ERROR_END_CHARS = 500;

/** An error message for hel's `hel: …` line: safe for the terminal, and bounded whatever it quotes. */
export function errorText(message: string): string {
  const safe = terminalSafe(message);
  if (safe.length <= MAX_ERROR_CHARS) return safe;
  const head = safe.slice(0, MAX_ERROR_CHARS - ERROR_END_CHARS);
  const tail = safe.slice(-ERROR_END_CHARS);
  return `${head}… (${groupDigits(safe.length - head.length - tail.length)} characters left out) …${tail}`;
}

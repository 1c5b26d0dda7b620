// The last lines of a terminal's stderr, redrawn in place: the spinner with what hel is doing, and
// reasoning while it streams. Whatever else is printed goes above it: print() erases the region,
// writes, and draws the region again below. Each line is cut to the terminal's width, so none wraps
// and the cursor always knows how many lines to go back up.
import { fitWidth } from "./style.js";

export interface TerminalOutput {
  write(text: string): void;
  columns?: number;
}

export class LiveRegion {
  private lines: string[] = [];
  /** Lines of the region on screen now; the cursor is at the end of the last. */
  private drawn = 0;

  constructor(private readonly out: TerminalOutput) {}

  set(lines: string[]): void {
    this.lines = lines;
    this.out.write(this.erasing() + this.drawing());
  }

  /** Runs `write`, which prints whole lines, above the region. */
  print(write: () => void): void {
    const erase = this.erasing();
    if (erase) this.out.write(erase);
    write();
    const draw = this.drawing();
    if (draw) this.out.write(draw);
  }

  clear(): void {
    this.lines = [];
    const erase = this.erasing();
    if (erase) this.out.write(erase);
  }

  private erasing(): string {
    const up = this.drawn > 1 ? `\x1b[${this.drawn - 1}A` : "";
    const text = this.drawn > 0 ? `\r${up}\x1b[J` : "";
    this.drawn = 0;
    return text;
  }

  private drawing(): string {
    const width = Math.max(10, (this.out.columns || 80) - 1);
    this.drawn = this.lines.length;
    return this.lines.map((line) => fitWidth(line, width)).join("\n");
  }
}

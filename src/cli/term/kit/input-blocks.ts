// Multi-line text on the one-line prompt: a pasted block, or an earlier multi-line instruction
// recalled from the history, stands on the line as a short label ("[12 lines #1]") that the user can
// type around, and is put back in full when the line is sent. Pure: the labels live in this object.

export class InputBlocks {
  private readonly texts = new Map<string, string>();

  /** The label that stands for `text` on the line. */
  add(text: string): string {
    const lines = text.split("\n").length;
    const label = `[${lines} lines #${this.texts.size + 1}]`;
    this.texts.set(label, text);
    return label;
  }

  /** `line` with every label in it replaced by its text. */
  expand(line: string): string {
    let out = line;
    for (const [label, text] of this.texts) if (out.includes(label)) out = out.split(label).join(text);
    return out;
  }

  /** How `text` stands on the one-line prompt: itself when it is one line, a label otherwise. */
  onLine(text: string): string {
    return text.includes("\n") ? this.add(text) : text;
  }
}

// Where a streaming answer can be cut so that what came so far renders as markdown on its own: just
// before a line that starts a new block (a non-blank line at the left margin after a blank line),
// never inside a fenced code block. An indented line after a blank line may continue a list item,
// so it is not a cut. Pure: the renderer prints the complete part and keeps the rest.
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

export function splitCompleteBlocks(text: string): { complete: string; rest: string } {
  let cut = 0;
  let fence: string | null = null;
  let previousBlank = false;
  for (let start = 0; start < text.length; ) {
    const nl = text.indexOf("\n", start);
    const line = text.slice(start, nl === -1 ? text.length : nl);
    if (fence === null && previousBlank && line !== "" && !/^\s/.test(line)) cut = start;
    const match = FENCE.exec(line);
    if (fence === null && match) fence = match[1]!;
    else if (fence !== null && match && match[1]!.startsWith(fence) && match[2]!.trim() === "") fence = null;
    previousBlank = line.trim() === "";
    if (nl === -1) break;
    start = nl + 1;
  }
  return { complete: text.slice(0, cut), rest: text.slice(cut) };
}

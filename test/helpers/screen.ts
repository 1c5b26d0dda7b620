// What a terminal shows after receiving `bytes`: enough of a terminal to follow hel's redrawn spinner
// and readline's redrawn prompt (carriage return, cursor up, cursor to a column, erase to the end of
// the screen or line). Other escape sequences (colours) are kept in the text as they came, so a test
// can assert on them.
export function screenOf(bytes: string): string {
  const lines: string[] = [""];
  let row = 0;
  let col = 0;
  const put = (text: string) => {
    const line = lines[row] ?? "";
    lines[row] = line.slice(0, col) + text + line.slice(col + text.length);
    col += text.length;
  };
  const control = /\r|\n|\x1b\[(\d*)A|\x1b\[(\d*)G|\x1b\[0?J|\x1b\[K/g;
  let last = 0;
  for (let m = control.exec(bytes); m; m = control.exec(bytes)) {
    put(bytes.slice(last, m.index));
    last = control.lastIndex;
    if (m[0] === "\r") col = 0;
    else if (m[0] === "\n") {
      row++;
      col = 0;
      lines[row] ??= "";
    } else if (m[2] !== undefined) col = Math.max(0, Number(m[2] || 1) - 1);
    else if (m[0].endsWith("J")) {
      lines[row] = (lines[row] ?? "").slice(0, col);
      lines.length = row + 1;
    } else if (m[0] === "\x1b[K") lines[row] = (lines[row] ?? "").slice(0, col);
    else row = Math.max(0, row - Number(m[1] || 1));
  }
  put(bytes.slice(last));
  return lines.join("\n");
}

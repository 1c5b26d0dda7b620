// The diff of one edit as the tools describe it: hunks numbered like the file, three lines of
// context, computed from the replaced text and the lines around it.
import { describe, expect, it } from "vitest";
import { describeEdit, MAX_DIFF_EDIT_LENGTH } from "../../src/changes/edit-diff.js";

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");

describe("describeEdit", () => {
  it("numbers the hunk like the file and keeps three lines of context on each side", () => {
    const text = numbered(20);
    const at = text.indexOf("line 10\n");
    expect(describeEdit("a.txt", text, at, "line 10\n", "ten\nTEN\n")).toEqual({
      path: "a.txt",
      created: false,
      added: 2,
      removed: 1,
      hunks: [
        {
          old_start: 7,
          old_lines: 7,
          new_start: 7,
          new_lines: 8,
          lines: [" line 7", " line 8", " line 9", "-line 10", "+ten", "+TEN", " line 11", " line 12", " line 13"],
        },
      ],
    });
  });

  it("marks only the lines that changed when old and new text share lines", () => {
    const text = numbered(6);
    const old = "line 2\nline 3\nline 4\n";
    const edit = describeEdit("a.txt", text, text.indexOf(old), old, "line 2\nTHREE\nline 4\n");
    expect(edit.hunks).toEqual([{ old_start: 1, old_lines: 6, new_start: 1, new_lines: 6, lines: [" line 1", " line 2", "-line 3", "+THREE", " line 4", " line 5", " line 6"] }]);
    expect([edit.added, edit.removed]).toEqual([1, 1]);
  });

  it("widens a change inside a line to the whole line, at the top and the end of a file without a final newline", () => {
    const text = "alpha beta\ngamma";
    expect(describeEdit("b.txt", text, 6, "beta", "BETA").hunks).toEqual([{ old_start: 1, old_lines: 2, new_start: 1, new_lines: 2, lines: ["-alpha beta", "+alpha BETA", " gamma"] }]);
    expect(describeEdit("b.txt", text, 11, "gamma", "delta").hunks).toEqual([{ old_start: 1, old_lines: 2, new_start: 1, new_lines: 2, lines: [" alpha beta", "-gamma", "+delta"] }]);
  });

  it("counts an empty first line as a line", () => {
    const text = "\n\nthird\n";
    expect(describeEdit("c.txt", text, 2, "third", "3rd").hunks).toEqual([{ old_start: 1, old_lines: 3, new_start: 1, new_lines: 3, lines: [" ", " ", "-third", "+3rd"] }]);
  });

  it("describes a removal and a new file", () => {
    const text = numbered(9);
    const removal = describeEdit("d.txt", text, text.indexOf("line 5\n"), "line 5\n", "");
    expect(removal.hunks).toEqual([{ old_start: 2, old_lines: 7, new_start: 2, new_lines: 6, lines: [" line 2", " line 3", " line 4", "-line 5", " line 6", " line 7", " line 8"] }]);
    expect(describeEdit("new.txt", "", 0, "", "one\ntwo\n", true)).toEqual({
      path: "new.txt",
      created: true,
      added: 2,
      removed: 0,
      hunks: [{ old_start: 1, old_lines: 0, new_start: 1, new_lines: 2, lines: ["+one", "+two"] }],
    });
  });

  it("shows a rewrite too large to diff as every old line removed and every new line added", () => {
    const old = numbered(MAX_DIFF_EDIT_LENGTH);
    const replacement = old.replaceAll("line", "row");
    const edit = describeEdit("big.txt", old, 0, old, replacement);
    expect(edit.hunks).toHaveLength(1);
    expect([edit.removed, edit.added]).toEqual([MAX_DIFF_EDIT_LENGTH, MAX_DIFF_EDIT_LENGTH]);
    expect(edit.hunks[0]!.lines[0]).toBe("-line 1");
    expect(edit.hunks[0]!.lines[MAX_DIFF_EDIT_LENGTH]).toBe("+row 1");
  });
});

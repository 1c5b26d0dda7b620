// How an edit looks to a person: the diff lines with their numbers in the file, the call's one-line
// label, and the closing list of changed files.
import { describe, expect, it } from "vitest";
import { ChangedFiles } from "../../../src/cli/term/kit/changed-files.js";
import { formatEdit } from "../../../src/cli/term/kit/diff-view.js";
import { ANSI, PLAIN } from "../../../src/cli/term/kit/style.js";
import { toolCallLabel, toolEndLines } from "../../../src/cli/term/tool-views.js";
import { describeEdit } from "../../../src/changes/edit-diff.js";

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");
const text = numbered(120);
const edit = describeEdit("src/a.ts", text, text.indexOf("line 100\n"), "line 100\n", "hundred\n");

describe("formatEdit", () => {
  it("numbers each line: the old number for removed and unchanged lines, the new one for added lines", () => {
    expect(formatEdit(edit, { style: PLAIN, indent: "  " })).toEqual([
      "   97   line 97",
      "   98   line 98",
      "   99   line 99",
      "  100 - line 100",
      "  100 + hundred",
      "  101   line 101",
      "  102   line 102",
      "  103   line 103",
    ]);
  });

  it("colours removed lines red and added lines green, and dims the numbers", () => {
    const lines = formatEdit(edit, { style: ANSI });
    expect(lines[3]).toBe("\x1b[2m100\x1b[22m \x1b[31m- line 100\x1b[39m");
    expect(lines[4]).toBe("\x1b[2m100\x1b[22m \x1b[32m+ hundred\x1b[39m");
  });

  it("separates hunks and counts what it leaves out", () => {
    const two = { ...edit, hunks: [edit.hunks[0]!, { ...edit.hunks[0]!, old_start: 110, new_start: 110 }] };
    const all = formatEdit(two, { style: PLAIN });
    expect(all[8]).toBe("    ⋮");
    expect(all[9]).toBe("110   line 97");
    expect(formatEdit(two, { style: PLAIN, maxLines: 5 }).slice(4)).toEqual(["100 + hundred", "… 11 more diff lines"]);
  });

  it("shows control characters from the file as ?, so a file cannot drive the terminal", () => {
    const hostile = describeEdit("x.txt", "a\n", 0, "a", "\x1b[2Jb");
    expect(formatEdit(hostile, { style: PLAIN })).toEqual(["1 - a", "1 + ?[2Jb"]);
  });
});

describe("the live view of a tool call", () => {
  it("names an edit by its path and other calls by their arguments on one line", () => {
    expect(toolCallLabel("search_replace", JSON.stringify({ path: "src/a.ts", old_text: "x", new_text: "y" }))).toBe("search_replace src/a.ts");
    expect(toolCallLabel("read_file", '{"path":\n  "."}')).toBe('read_file {"path": "."}');
    expect(toolCallLabel("search_replace", "not json")).toBe("search_replace not json");
  });

  it("shows the diff under an edit, indented under a subagent's, and the first line of an error", () => {
    const end = { agent: "child" as const, delegation: 1, type: "tool_end" as const, callId: "c1", name: "search_replace", isError: false, result: "Edited", edit };
    expect(toolEndLines(end, PLAIN, "    ")[3]).toBe("      100 - line 100");
    expect(toolEndLines({ ...end, isError: true, result: "Error: no match\nmore" }, PLAIN, "")).toEqual(["  ✗ Error: no match"]);
  });
});

describe("ChangedFiles", () => {
  it("lists each file once with the lines all its edits added and removed", () => {
    const files = new ChangedFiles();
    expect(files.lines(PLAIN)).toEqual([]);
    files.add(edit);
    files.add(describeEdit("notes/new.md", "", 0, "", "one\ntwo\n", true));
    files.add(describeEdit("src/a.ts", "a\nb\n", 2, "b\n", "B\nC\n"));
    expect(files.lines(PLAIN)).toEqual(["changed 2 files:", "  src/a.ts      +3 -2", "  notes/new.md  +2 -0 (new)"]);
  });
});

// Front matter: flat `key: value` lines, quoted values, lists in both spellings, and the body after;
// whatever else a file holds between its `---` lines is an error naming the line.
import { describe, expect, it } from "vitest";
import { FrontMatterError, parseFrontMatter } from "../../src/fs/front-matter.js";

describe("parseFrontMatter", () => {
  it("reads plain, quoted and commented values, both kinds of list, and the body after the closing line", () => {
    const text = [
      "---",
      "description: Writes the tests  # the comment goes",
      "# a comment line",
      "",
      `model: "deepseek-flash # kept"`,
      "quote: 'it''s here'",
      "tools: [read_file, \"grep\", 'find_files']   # the rest are refused",
      `said: "a # b" # and a comment`,
      "more:",
      "  - run_command",
      "  - search_replace",
      "empty:",
      "none: []",
      "---",
      "Body line one.",
      "",
      "Body line three.",
    ].join("\r\n");
    const { data, body } = parseFrontMatter(text);
    expect({ ...data }).toEqual({
      description: "Writes the tests",
      model: "deepseek-flash # kept",
      quote: "it's here",
      tools: ["read_file", "grep", "find_files"],
      said: "a # b",
      more: ["run_command", "search_replace"],
      empty: "",
      none: [],
    });
    expect(body).toBe("Body line one.\n\nBody line three.");
  });

  it("takes a file without an opening --- as all body, and a key such as __proto__ as a key", () => {
    expect(parseFrontMatter("# Title\n---\n")).toEqual({ data: {}, body: "# Title\n---\n" });
    const { data } = parseFrontMatter("\uFEFF---\n__proto__: x\n---\n");
    expect(Object.entries(data)).toEqual([["__proto__", "x"]]);
  });

  it.each([
    ["---\ndescription: x\n", "the front matter opened by --- on line 1 has no closing --- line"],
    ["---\njust words\n---\n", 'line 2 is not a "key: value" line'],
    ["---\na: 1\na: 2\n---\n", "line 3 gives a a second time"],
    ["---\na: |\n  text\n---\n", "line 2: a block of text (|) is not supported; write the value on one line"],
    ["---\na: [x, y\n---\n", "line 2: the list is not closed by a ] at the end"],
    ["---\na: [x, , y]\n---\n", "line 2: the list has an empty item"],
    ['---\na: "open\n---\n', 'line 2: the quoted value is not closed by a " at the end'],
    ["---\nnested:\n  key: value\n---\n", 'line 3 is not a "key: value" line'],
  ])("refuses %j", (text, message) => {
    expect(() => parseFrontMatter(text)).toThrow(new FrontMatterError(message));
  });
});

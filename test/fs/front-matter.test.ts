import { describe, expect, it } from "vitest";
import { parseFrontMatter } from "../../src/fs/front-matter.js";

describe("parseFrontMatter", () => {
  it("reads the keys between the --- lines and gives the rest as the body", () => {
    const text = [
      "---",
      "name: deploy",
      'description: "Ships it: to staging"',
      "tools: [read_file, 'grep']",
      "# a comment",
      "paths:",
      "  - src/",
      "  - test/",
      "summary: >",
      "  one line",
      "  folded",
      "note: a plain value",
      "  that goes on",
      "---",
      "Body line 1",
      "",
      "Body line 3",
    ].join("\n");
    expect(parseFrontMatter(text)).toEqual({
      data: {
        name: "deploy",
        description: "Ships it: to staging",
        tools: ["read_file", "grep"],
        paths: ["src/", "test/"],
        summary: "one line folded",
        note: "a plain value that goes on",
      },
      body: "Body line 1\n\nBody line 3",
    });
  });

  it("a file without front matter is all body; CRLF and a BOM are read like LF", () => {
    expect(parseFrontMatter("just text\n---\n")).toEqual({ data: {}, body: "just text\n---\n" });
    expect(parseFrontMatter("\uFEFF---\r\nname: x\r\n---\r\nbody")).toEqual({ data: { name: "x" }, body: "body" });
  });

  it("says which line is wrong, and when the block never ends", () => {
    expect(() => parseFrontMatter("---\nname: x\nthis is not a pair\n---\n")).toThrow('line 3 of the front matter is not "key: value"');
    expect(() => parseFrontMatter("---\nname: x\n")).toThrow("the front matter has no closing --- line");
  });
});

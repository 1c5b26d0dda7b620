// An answer's markdown as the terminal shows it, and where a streaming answer can be cut into blocks
// that render on their own.
import { describe, expect, it } from "vitest";
import { splitCompleteBlocks } from "../../../../src/cli/term/kit/answer-blocks.js";
import { renderMarkdown } from "../../../../src/cli/term/kit/markdown.js";
import { ANSI, PLAIN } from "../../../../src/cli/term/kit/style.js";

const ANSWER = [
  "# Fixed",
  "",
  "The greeting said **Helo**, now *Hello*; see `greet.js` and [the docs](https://example.com).",
  "",
  "- one",
  "- two",
  "  - nested",
  "- [x] done",
  "",
  "3. third",
  "4. fourth",
  "",
  "> quoted",
  "",
  "```js",
  'const a = "s"; // note',
  "```",
  "",
  "| name | n |",
  "| --- | --: |",
  "| a | 10 |",
].join("\n");

describe("renderMarkdown", () => {
  it("drops the markup without colour, keeping what it meant", () => {
    expect(renderMarkdown(ANSWER, { style: PLAIN, width: 80 })).toBe(
      [
        "# Fixed",
        "",
        "The greeting said Helo, now Hello; see `greet.js` and the docs (https://example.com).",
        "",
        "• one",
        "• two",
        "  • nested",
        "• [x] done",
        "",
        "3. third",
        "4. fourth",
        "",
        "│ quoted",
        "",
        '  const a = "s"; // note',
        "",
        "name │  n",
        "─────┼───",
        "a    │ 10",
      ].join("\n"),
    );
  });

  it("styles headings, emphasis and inline code, and highlights a code block by its language", () => {
    const out = renderMarkdown(ANSWER, { style: ANSI, width: 80 });
    expect(out.split("\n")[0]).toBe("\x1b[1m\x1b[4mFixed\x1b[24m\x1b[22m");
    expect(out).toContain("said \x1b[1mHelo\x1b[22m, now \x1b[3mHello\x1b[23m; see \x1b[36mgreet.js\x1b[39m");
    expect(out).toContain('  \x1b[35mconst\x1b[39m a = \x1b[32m"s"\x1b[39m; \x1b[2m// note\x1b[22m');
    expect(out).not.toMatch(/\*\*|```/);
  });

  it("leaves code in a language it does not know as it is", () => {
    expect(renderMarkdown("```cobol\nDISPLAY 'HI'.\n```", { style: ANSI, width: 80 })).toBe("  DISPLAY 'HI'.");
  });

  it("shows escape sequences in the model's text as ?, so an answer cannot drive the terminal", () => {
    expect(renderMarkdown("a\x1b]0;title\x07b", { style: PLAIN, width: 80 })).toBe("a?]0;title?b");
  });
});

describe("splitCompleteBlocks", () => {
  it("cuts before a block that has begun at the margin after a blank line", () => {
    expect(splitCompleteBlocks("para one\n\npara two\n\nthi")).toEqual({ complete: "para one\n\npara two\n\n", rest: "thi" });
    expect(splitCompleteBlocks("para one\n\n")).toEqual({ complete: "", rest: "para one\n\n" });
  });

  it("does not cut inside a fenced code block or before an indented continuation", () => {
    const fenced = "```py\na = 1\n\nb = 2\n```\n\nafter";
    expect(splitCompleteBlocks(fenced)).toEqual({ complete: "```py\na = 1\n\nb = 2\n```\n\n", rest: "after" });
    expect(splitCompleteBlocks("```\na\n\nb")).toEqual({ complete: "", rest: "```\na\n\nb" });
    expect(splitCompleteBlocks("- item\n\n  more of it\n")).toEqual({ complete: "", rest: "- item\n\n  more of it\n" });
  });
});

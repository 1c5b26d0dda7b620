// Lines within a terminal's width: a long plain line is wrapped between the parts of a " · " list,
// else between words, and inside a word only when it alone is wider than a row; nothing is lost.
import { describe, expect, it } from "vitest";
import { rowWidth, wrapLine } from "../../../../src/cli/term/kit/style.js";

describe("wrapLine", () => {
  it("breaks a figures line between its parts, a part too wide between its words, and a word too wide inside it", () => {
    expect(wrapLine("1 request · 10 input tokens · 5 output", 24)).toEqual(["1 request", "  10 input tokens", "  5 output"]);
    expect(wrapLine("$0.01 (parent $0.01, 10 tokens) · context ~5", 20)).toEqual(["$0.01 (parent $0.01,", "  10 tokens)", "  context ~5"]);
    expect(wrapLine(`$ echo ${"x".repeat(30)} done`, 20, "    ")).toEqual(["$ echo", "    xxxxxxxxxxxxxxxx", "    xxxxxxxxxxxxxx", "    done"]);
    expect(wrapLine("short", 20)).toEqual(["short"]);
    for (const row of wrapLine("a ".repeat(100), 21)) expect(row.length).toBeLessThanOrEqual(21);
  });

  it("keeps one column of the terminal spare, and assumes 80 when it has no width", () => {
    expect([rowWidth(60), rowWidth(undefined), rowWidth(0), rowWidth(5)]).toEqual([59, 79, 79, 20]);
  });
});

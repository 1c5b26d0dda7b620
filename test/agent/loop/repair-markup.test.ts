// The markup rule on its own: which texts hold tool calls and which stay text. The simulator's cases
// (repairs.test.ts) cover the spellings it writes; these are the ones a model writes that it does not.
import { describe, expect, it } from "vitest";
import { callsFromMarkup } from "../../../src/agent/loop/repair-markup.js";

const answer = (content: string, reasoning?: string) => ({ role: "assistant" as const, content, ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}) });
const calls = (content: string, reasoning?: string) => callsFromMarkup(answer(content, reasoning), 2)?.tool_calls?.map((c) => c.function);

describe("callsFromMarkup", () => {
  it("reads string and JSON parameters, and an invoke with no body as no arguments", () => {
    const text = [
      "<｜DSML｜function_calls>",
      '<｜DSML｜invoke name="read_file">',
      '<｜DSML｜parameter name="path" string="true">src/a b.ts</｜DSML｜parameter>',
      '<｜DSML｜parameter name="limit" string="false">20</｜DSML｜parameter>',
      "</｜DSML｜invoke>",
      '<｜DSML｜invoke name="find_files"></｜DSML｜invoke>',
      "</｜DSML｜function_calls>",
    ].join("\n");
    expect(calls(text)).toEqual([
      { name: "read_file", arguments: '{"path":"src/a b.ts","limit":20}' },
      { name: "find_files", arguments: "{}" },
    ]);
  });

  it("takes out only the blocks that parse, keeping the text around them", () => {
    const good = '<|DSML|calls><|DSML|invoke name="grep">{"pattern": "x"}</|DSML|invoke></|DSML|calls>';
    const bad = '<|DSML|calls><|DSML|invoke name="grep">not an object</|DSML|invoke></|DSML|calls>';
    const repaired = callsFromMarkup(answer(`First.\n${good}\nThen:\n${bad}`), 2)!;
    expect(repaired.content).toBe(`First.\n\nThen:\n${bad}`);
    expect(repaired.tool_calls!.map((c) => c.function)).toEqual([{ name: "grep", arguments: '{"pattern":"x"}' }]);
  });

  it("leaves alone: an answer with real calls, an unclosed block, stray text between invokes, reasoning beside a real answer", () => {
    const block = '<｜DSML｜tool_calls><｜DSML｜invoke name="grep">{}</｜DSML｜invoke></｜DSML｜tool_calls>';
    expect(callsFromMarkup({ ...answer(block), tool_calls: [{ id: "c", type: "function", function: { name: "grep", arguments: "{}" } }] }, 2)).toBeNull();
    expect(calls(block.slice(0, -25))).toBeUndefined();
    expect(calls(block.replace("<｜DSML｜invoke", "and <｜DSML｜invoke"))).toBeUndefined();
    expect(calls("The answer is 4.", block)).toBeUndefined();
    expect(calls("", block)).toEqual([{ name: "grep", arguments: "{}" }]);
  });

  it("gives the same ids for the same answer at the same place, and other ids elsewhere", () => {
    const block = '<｜DSML｜calls><｜DSML｜invoke name="grep">{}</｜DSML｜invoke></｜DSML｜calls>';
    const id = (position: number) => callsFromMarkup(answer(block), position)!.tool_calls![0]!.id;
    expect(id(2)).toBe(id(2));
    expect(id(2)).not.toBe(id(4));
  });
});

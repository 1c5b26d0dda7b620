// The simulator's faults of the model, over raw HTTP: tool calls written as DSML text in each
// spelling, a call cut mid-arguments at max_tokens, and DeepSeek's refusal of a history that sends
// back arguments that are not JSON.
import { afterEach, describe, expect, it } from "vitest";
import { countTokens, startSimulator, type Simulator } from "../../sim/index.js";
import { post, READ_FILE, user } from "../helpers/sim.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

type Answer = { choices: { message: { content: string; reasoning_content?: string; tool_calls?: { function: { name: string; arguments: string } }[] }; finish_reason: string }[] };
const ask = async (extra: object = {}) => (await post(sim!.url, { model: "deepseek-flash", messages: [user("q")], tools: [READ_FILE], thinking: { type: "disabled" }, ...extra })).json as Answer;
const ARGS = JSON.stringify({ path: "src/a.ts", limit: 20 });

describe("tool calls written as text", () => {
  it("in the content: the markup after the text, no tool_calls, finish stop", async () => {
    sim = await startSimulator({ script: [{ content: "Reading.", tool_calls: [{ name: "read_file", arguments: ARGS }], markup: {} }] });
    const { message, finish_reason } = (await ask()).choices[0]!;
    expect(finish_reason).toBe("stop");
    expect(message.tool_calls).toBeUndefined();
    expect(message.content).toBe(
      'Reading.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="read_file">\n<｜DSML｜parameter name="path" string="true">src/a.ts</｜DSML｜parameter>\n<｜DSML｜parameter name="limit" string="false">20</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
    );
  });

  it("each spelling: the block's name, an ASCII bar, one JSON object, a spaced invoke", async () => {
    sim = await startSimulator({ script: [{ tool_calls: [{ name: "read_file", arguments: ARGS }], markup: { block: "calls", bar: "ascii", params: "json", spacedInvoke: true } }] });
    expect((await ask()).choices[0]!.message.content).toBe(`<|DSML|calls>\n<|DSML| invoke name="read_file">\n${ARGS}\n</|DSML| invoke>\n</|DSML|calls>`);
  });

  it("as the whole reasoning, with no content (thinking mode)", async () => {
    sim = await startSimulator({ script: [{ tool_calls: [{ name: "read_file", arguments: ARGS }], markup: { block: "tool_calls", in: "reasoning" } }] });
    const { message } = (await ask({ thinking: { type: "enabled" } })).choices[0]!;
    expect(message.content).toBe("");
    expect(message.reasoning_content).toMatch(/^<｜DSML｜tool_calls>\n<｜DSML｜invoke name="read_file">[^]*<\/｜DSML｜tool_calls>$/);
  });
});

it("a call that does not fit max_tokens is cut mid-arguments, finish length", async () => {
  const long = JSON.stringify({ path: "word ".repeat(50) });
  sim = await startSimulator({ script: [{ tool_calls: [{ name: "read_file", arguments: long }] }] });
  const { message, finish_reason } = (await ask({ max_tokens: Math.floor(countTokens(long) / 2) })).choices[0]!;
  expect(finish_reason).toBe("length");
  const cut = message.tool_calls![0]!.function.arguments;
  expect(long.startsWith(cut)).toBe(true);
  expect(cut.length).toBeGreaterThan(0);
  expect(cut.length).toBeLessThan(long.length);
});

it('a tool call sent back with arguments that are not JSON is refused with a 400; "" and JSON pass', async () => {
  sim = await startSimulator({ script: [{ content: "ok" }, { content: "ok" }] });
  const history = (args: string) => [
    user("q"),
    { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: args } }] },
    { role: "tool", tool_call_id: "c1", content: "r" },
  ];
  const refused = await post(sim.url, { model: "deepseek-flash", messages: history("{"), thinking: { type: "disabled" } });
  expect(refused.status).toBe(400);
  expect(refused.json).toEqual({
    error: { message: "Invalid tool call at messages[1].tool_calls[0]: function.arguments must be a JSON string of the arguments.", type: "invalid_request_error", param: null, code: "invalid_request_error" },
  });
  for (const args of ["", "{}"]) expect((await post(sim.url, { model: "deepseek-flash", messages: history(args), thinking: { type: "disabled" } })).status).toBe(200);
});

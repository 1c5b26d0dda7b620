// --json-schema, hel run in this process against the simulator: the schema rides at the end of the
// user's message (the system prompt and tools are a plain run's, and no response_format is sent); an
// answer that does not fit is asked for once more with what was wrong; a second miss ends the run
// with exit 1 and one line saying why; --json carries the value as structured_output. A schema hel
// cannot use is a usage error, and the modes where it makes no sense refuse it.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonEventSchema } from "../../../src/cli/json/json-events.js";
import { JsonOutputSchema } from "../../../src/cli/json/json-output.js";
import { parseArgs } from "../../../src/cli/options.js";
import type { ChatRequest } from "../../../src/wire/messages.js";
import { runInProcess } from "../../helpers/conversation.js";
import { helEnv } from "../../helpers/hel.js";
import { simulators } from "../../helpers/simulators.js";
import { tempProject } from "../../helpers/temp-project.js";

const start = simulators();
const SCHEMA = { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } }, required: ["name", "age"], additionalProperties: false };
const NOTE = `\n\n[Answer format] End with a final answer that is one JSON value valid against this JSON Schema, and nothing else: no prose, no code fence.\n${JSON.stringify(SCHEMA)}`;
const retry = (mismatch: string) => `[Answer format] That answer does not fit the JSON Schema: ${mismatch}. Answer again with only the JSON value.`;
const bodies = (sim: { requests: { body: unknown }[] }) => sim.requests.map((r) => r.body as ChatRequest);

describe("--json-schema", () => {
  it("puts the schema at the end of the user's message, leaving the system prompt and tools as a plain run's, and sends no response_format", async () => {
    const sim = await start({ script: [{ content: "Plain." }, { content: '{"name":"Ada","age":36}' }] });
    const project = await tempProject();
    expect((await runInProcess({ args: ["-C", project, "who?"], baseUrl: sim.url })).code).toBe(0);
    const file = join(project, "person.json");
    await writeFile(file, JSON.stringify(SCHEMA, null, 2));
    const result = await runInProcess({ args: ["-C", project, "--json-schema", file, "who?"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{"name":"Ada","age":36}\n');
    const [plain, shaped] = bodies(sim);
    expect(shaped!.messages).toEqual([plain!.messages[0], { role: "user", content: `[#1] who?${NOTE}` }]);
    expect(shaped!.tools).toEqual(plain!.tools);
    expect(Object.keys(shaped!)).toEqual(Object.keys(plain!));
    expect(shaped).not.toHaveProperty("response_format");
  });

  it("asks once more with the validation errors, then --json has the value as structured_output", async () => {
    const sim = await start({ script: [{ content: "Ada, 36." }, { content: '```json\n{"name":"Ada","age":36}\n```' }] });
    const project = await tempProject();
    const result = await runInProcess({ args: ["-C", project, "--json", "--json-schema", JSON.stringify(SCHEMA), "who?"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const [first, second] = bodies(sim);
    expect(first!.messages.at(-1)).toEqual({ role: "user", content: `[#1] who?${NOTE}` });
    expect(second!.messages.slice(-2)).toEqual([
      { role: "assistant", content: "Ada, 36.", reasoning_content: "Let me check what I have so far. I have enough to answer now." },
      { role: "user", content: `[#2] ${retry("it is not JSON (Unexpected token 'A', \"Ada, 36.\" is not valid JSON)")}` },
    ]);
    const json = JsonOutputSchema.parse(JSON.parse(result.stdout));
    expect(json).toMatchObject({ exit_reason: "completed", answer: '```json\n{"name":"Ada","age":36}\n```', structured_output: { name: "Ada", age: 36 } });
  });

  it("after a second answer that does not fit, exits 1 saying why in one line", async () => {
    const sim = await start({ script: [{ content: '{"name":"Ada"}' }, { content: '{"name":"Ada","age":"36"}' }] });
    const project = await tempProject();
    const result = await runInProcess({ args: ["-C", project, "--json", "--json-schema", JSON.stringify(SCHEMA), "who?"], baseUrl: sim.url });
    expect(result.code).toBe(1);
    expect(bodies(sim)[1]!.messages.at(-1)).toEqual({ role: "user", content: `[#2] ${retry("the value must have required property 'age'")}` });
    expect(sim.requests).toHaveLength(2);
    const why = "the answer did not fit --json-schema, asked twice: /age must be integer";
    expect(result.stderr).toContain(`${why}\n`);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ exit_reason: "error", error: why });
    expect(json).not.toHaveProperty("structured_output");
  });

  it("checks the answer of each instruction on stdin's lines, each told the schema", async () => {
    const sim = await start({ script: [{ content: "no" }, { content: '{"name":"Ada","age":36}' }, { content: '{"name":"Bob","age":7}' }] });
    const result = await runInProcess({ args: ["-C", await tempProject(), "--json", "--json-schema", JSON.stringify(SCHEMA)], input: "one\ntwo\n", baseUrl: sim.url });
    expect(result.code).toBe(0);
    const objects = result.stdout
      .trim()
      .split("\n")
      .map((line) => JsonOutputSchema.parse(JSON.parse(line)));
    expect(objects.map((o) => o.structured_output)).toEqual([
      { name: "Ada", age: 36 },
      { name: "Bob", age: 7 },
    ]);
    expect(bodies(sim)[2]!.messages.at(-1)).toEqual({ role: "user", content: `[#3] two${NOTE}` });
  });

  it("--json-events' last turn_end carries it too", async () => {
    const sim = await start({ script: [{ content: '{"name":"Ada","age":36}' }] });
    const result = await runInProcess({ args: ["-C", await tempProject(), "--json-events", "--json-schema", JSON.stringify(SCHEMA), "who?"], baseUrl: sim.url });
    const end = result.stdout
      .trim()
      .split("\n")
      .map((line) => JsonEventSchema.parse(JSON.parse(line)))
      .at(-1);
    expect(end).toMatchObject({ type: "turn_end", agent: "parent", structured_output: { name: "Ada", age: 36 } });
  });

  it("--json without --json-schema has no structured_output", async () => {
    const sim = await start({ script: [{ content: '{"name":"Ada","age":36}' }] });
    const result = await runInProcess({ args: ["-C", await tempProject(), "--json", "who?"], baseUrl: sim.url });
    expect(JSON.parse(result.stdout)).not.toHaveProperty("structured_output");
  });

  it("refuses a schema that is not JSON, not a schema, or not there, before any request", async () => {
    const sim = await start({ script: [] });
    const project = await tempProject();
    const run = (schema: string) => runInProcess({ args: ["-C", project, "--json-schema", schema, "who?"], baseUrl: sim.url });
    await expect(run("{name")).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^--json-schema: "\{name" is not JSON \(.*\) — give a JSON Schema object$/) });
    await expect(run('{"type":"nonsense"}')).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^--json-schema is not a valid JSON Schema: schema is invalid: /) });
    await expect(run("missing.json")).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining("--json-schema: cannot read ") });
    expect(sim.requests).toHaveLength(0);
  });

  it("hel acp refuses it", () => {
    expect(() => parseArgs(["--json-schema", "{}", "acp"], helEnv("http://127.0.0.1:1"), "test")).toThrow("hel acp answers the editor in prose, so --json-schema cannot be used with it — leave it out");
  });
});

// --output-format stream-json, hel run in this process against the simulator: the lines of
// `claude -p --output-format stream-json --verbose` — an init line, the model's answers as assistant
// messages of content blocks, tool results as user messages, a subagent's messages tagged with the call
// that started it, and a result line with the session, the cost and the usage in Anthropic's words; an
// error ends with an error result. `--output-format json` prints the result line alone; it and
// stream-json refuse --json and --json-events.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_TOOLS } from "../../../src/agent/toolbox.js";
import { parseArgs } from "../../../src/cli/options.js";
import { type StreamJsonLine, StreamJsonLineSchema } from "../../../src/cli/json/stream-json.js";
import type { ChatRequest, Usage } from "../../../src/wire/messages.js";
import { runInProcess } from "../../helpers/conversation.js";
import { helEnv } from "../../helpers/hel.js";
import { simulators } from "../../helpers/simulators.js";
import { tempProject } from "../../helpers/temp-project.js";

const start = simulators();
const linesOf = (stdout: string): StreamJsonLine[] =>
  stdout
    .trim()
    .split("\n")
    .map((line) => StreamJsonLineSchema.parse(JSON.parse(line)));
const anthropic = (...us: Usage[]) => ({
  input_tokens: us.reduce((s, u) => s + u.prompt_cache_miss_tokens, 0),
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: us.reduce((s, u) => s + u.prompt_cache_hit_tokens, 0),
  output_tokens: us.reduce((s, u) => s + u.completion_tokens, 0),
});
const REASONING = "Let me check what I have so far. I have enough to answer now.";

describe("--output-format stream-json", () => {
  it("writes the init line, the assistant's tool_use, the tool_result, the answer and the result", async () => {
    const sim = await start({ script: [{ content: "Reading it.", tool_calls: [{ id: "call_1", name: "read_file", arguments: '{"path":"notes.txt"}' }] }, { content: "It says hi." }] });
    const project = await tempProject();
    await writeFile(join(project, "notes.txt"), "hi\n");
    const result = await runInProcess({ args: ["-C", project, "--output-format", "stream-json", "what do the notes say?"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const lines = linesOf(result.stdout);
    expect(lines.map((l) => l.type)).toEqual(["system", "assistant", "user", "assistant", "result"]);
    const [init, call, toolResult, answer, end] = lines as [
      StreamJsonLine & { type: "system" },
      StreamJsonLine & { type: "assistant" },
      StreamJsonLine & { type: "user" },
      StreamJsonLine & { type: "assistant" },
      StreamJsonLine & { type: "result" },
    ];
    const session_id = end.session_id;
    expect(session_id).toMatch(/\S/);
    expect(init).toEqual({
      type: "system",
      subtype: "init",
      uuid: expect.any(String),
      session_id,
      cwd: project,
      model: "deepseek-flash",
      tools: [...DEFAULT_TOOLS],
      mcp_servers: [],
      permissionMode: "acceptEdits",
      apiKeySource: "user",
      slash_commands: [],
      output_style: "default",
    });
    const [u1, u2] = sim.requests.map((r) => r.usage!) as [Usage, Usage];
    expect(call).toEqual({
      type: "assistant",
      uuid: expect.any(String),
      session_id,
      parent_tool_use_id: null,
      message: {
        id: expect.stringMatching(/^msg_/),
        type: "message",
        role: "assistant",
        model: "deepseek-flash",
        content: [
          { type: "thinking", thinking: expect.any(String), signature: "" },
          { type: "text", text: "Reading it." },
          { type: "tool_use", id: "call_1", name: "read_file", input: { path: "notes.txt" } },
        ],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: anthropic(u1),
      },
    });
    // The result is what the model got, without hel's stamp.
    const sent = (sim.requests[1]!.body as ChatRequest).messages.at(-1)!;
    expect(sent.role).toBe("tool");
    expect(toolResult).toEqual({
      type: "user",
      uuid: expect.any(String),
      session_id,
      parent_tool_use_id: null,
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: String(sent.content).replace(/^\[#\d+\] /, ""), is_error: false }] },
    });
    expect(toolResult.message.content[0]).toMatchObject({ content: expect.stringContaining("hi") });
    expect(answer.message).toMatchObject({
      content: [
        { type: "thinking", thinking: REASONING, signature: "" },
        { type: "text", text: "It says hi." },
      ],
      stop_reason: "end_turn",
      usage: anthropic(u2),
    });
    expect(end).toEqual({
      type: "result",
      subtype: "success",
      uuid: expect.any(String),
      session_id,
      is_error: false,
      duration_ms: expect.any(Number),
      duration_api_ms: expect.any(Number),
      num_turns: 2,
      result: "It says hi.",
      stop_reason: "end_turn",
      total_cost_usd: expect.any(Number),
      usage: anthropic(u1, u2),
      modelUsage: { "deepseek-flash": { ...camel(anthropic(u1, u2)), webSearchRequests: 0, costUSD: end.total_cost_usd } },
      permission_denials: [],
    });
    expect(end.total_cost_usd).toBeGreaterThan(0);
  });

  it("runs the command line a script wrote for claude -p", async () => {
    const sim = await start({ script: [{ content: "Hi." }] });
    const result = await runInProcess({ args: ["-C", await tempProject(), "-p", "say hi", "--output-format", "stream-json", "--verbose"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(linesOf(result.stdout).map((l) => l.type)).toEqual(["system", "assistant", "result"]);
    expect((sim.requests[0]!.body as ChatRequest).messages.at(-1)).toEqual({ role: "user", content: "[#1] say hi" });
  });

  it("tags a subagent's messages with the call that started it", async () => {
    const sim = await start({
      script: [{ tool_calls: [{ id: "call_d", name: "delegate_task", arguments: JSON.stringify({ task: "Say which files exist." }) }] }, { content: "Only README.md." }, { content: "There is only README.md." }],
    });
    const result = await runInProcess({ args: ["-C", await tempProject(), "--delegate", "task-only", "--output-format", "stream-json", "list the files"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const lines = linesOf(result.stdout);
    const tagged = lines.map((l) => (l.type === "assistant" || l.type === "user" ? [l.type, l.parent_tool_use_id, l.message.content.map((b) => b.type).join(",")] : [l.type]));
    expect(tagged).toEqual([["system"], ["assistant", null, "thinking,tool_use"], ["assistant", "call_d", "thinking,text"], ["user", null, "tool_result"], ["assistant", null, "thinking,text"], ["result"]]);
    const end = lines.at(-1) as StreamJsonLine & { type: "result" };
    // Every agent's requests are in the result's usage; num_turns counts the parent's.
    expect(end).toMatchObject({ num_turns: 2, usage: anthropic(...sim.requests.map((r) => r.usage!)) });
  });

  it("tags a subagent's messages with its own call when an earlier call to start one was refused", async () => {
    const sim = await start({
      script: [
        { tool_calls: [{ id: "call_bad", name: "delegate_task", arguments: "{task: nope" }] },
        { tool_calls: [{ id: "call_d", name: "delegate_task", arguments: JSON.stringify({ task: "Say which files exist." }) }] },
        { content: "Only README.md." },
        { content: "There is only README.md." },
      ],
    });
    const result = await runInProcess({ args: ["-C", await tempProject(), "--delegate", "task-only", "--output-format", "stream-json", "list the files"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const child = linesOf(result.stdout).filter((l) => (l.type === "assistant" || l.type === "user") && l.parent_tool_use_id !== null);
    expect(child.map((l) => (l.type === "assistant" ? l.parent_tool_use_id : null))).toEqual(["call_d"]);
  });

  it("ends a failed instruction with an error result, exit 1", async () => {
    const sim = await start({ script: [{ fault: { kind: "status", status: 400, body: { error: { message: "bad request", type: "invalid_request_error" } } } }] });
    const result = await runInProcess({ args: ["-C", await tempProject(), "--output-format", "stream-json", "hi"], baseUrl: sim.url });
    expect(result.code).toBe(1);
    const lines = linesOf(result.stdout);
    expect(lines.map((l) => l.type)).toEqual(["system", "result"]);
    const end = lines[1] as StreamJsonLine & { type: "result" };
    expect(end).toMatchObject({ subtype: "error_during_execution", is_error: true, num_turns: 0, errors: [expect.stringContaining("bad request")] });
    expect(end).not.toHaveProperty("result");
  });

  it("names running out of steps and an answer that never fit --json-schema as Claude does", async () => {
    const steps = await start({ script: [{ tool_calls: [{ name: "find_files", arguments: '{"pattern":"*"}' }] }] });
    const stopped = await runInProcess({ args: ["-C", await tempProject(), "--max-steps", "1", "--output-format", "json", "look"], baseUrl: steps.url });
    expect(stopped.code).toBe(1);
    expect(linesOf(stopped.stdout)).toEqual([expect.objectContaining({ type: "result", subtype: "error_max_turns", is_error: true })]);

    const shaped = await start({ script: [{ content: "no" }, { content: "still no" }] });
    const refused = await runInProcess({ args: ["-C", await tempProject(), "--json-schema", '{"type":"object"}', "--output-format", "json", "look"], baseUrl: shaped.url });
    expect(refused.code).toBe(1);
    expect(linesOf(refused.stdout)).toEqual([expect.objectContaining({ subtype: "error_max_structured_output_retries", errors: [expect.stringMatching(/^the answer did not fit --json-schema, asked twice: /)] })]);
  });
});

describe("--output-format json", () => {
  it("prints the result line alone, with structured_output under --json-schema", async () => {
    const sim = await start({ script: [{ content: '{"ok":true}' }] });
    const result = await runInProcess({ args: ["-C", await tempProject(), "--output-format", "json", "--json-schema", '{"type":"object"}', "ok?"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(linesOf(result.stdout)).toEqual([expect.objectContaining({ type: "result", subtype: "success", result: '{"ok":true}', structured_output: { ok: true } })]);
  });

  it("and stream-json refuse --json and --json-events in one line", () => {
    const parse =
      (...args: string[]) =>
      () =>
        parseArgs([...args, "hi"], helEnv("http://127.0.0.1:1"), "test");
    expect(parse("--output-format", "stream-json", "--json")).toThrow("--output-format stream-json and --json both write stdout's JSON — pick one");
    expect(parse("--output-format", "json", "--json-events")).toThrow("--output-format json and --json-events both write stdout's JSON — pick one");
    expect(parse("--output-format", "xml")).toThrow(/--output-format/);
    expect(() => parseArgs(["--output-format", "stream-json", "acp"], helEnv("http://127.0.0.1:1"), "test")).toThrow(
      "hel acp keeps stdout for the protocol, so --output-format stream-json cannot be used with it — leave it out",
    );
  });
});

function camel(u: ReturnType<typeof anthropic>) {
  return { inputTokens: u.input_tokens, outputTokens: u.output_tokens, cacheReadInputTokens: u.cache_read_input_tokens, cacheCreationInputTokens: 0 };
}

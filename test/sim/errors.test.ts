import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { client, post, READ_FILE, user } from "../helpers/sim.js";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ policy: "echo", apiKeys: ["sk-test-0000abcd", "sk-other"], contextWindow: 20_000 });
});
afterAll(async () => {
  await sim.close();
});

const ok = { model: "deepseek-flash", messages: [user("hi")], max_tokens: 100 };
const call = { id: "call_00_aaaaaaaaaaaaaaaaaaaaaaaa", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } };

function expectError(r: { status: number; json: unknown }, status: number, message: string | RegExp, type = "invalid_request_error"): void {
  expect(r.status).toBe(status);
  const body = r.json as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error)).toEqual(["message", "type", "param", "code"]);
  expect(body.error["param"]).toBeNull();
  expect(body.error["type"]).toBe(type);
  expect(typeof body.error["code"]).toBe("string");
  if (typeof message === "string") expect(body.error["message"]).toBe(message);
  else expect(body.error["message"]).toMatch(message);
}

describe("routes", () => {
  it("404 for an unknown path, 405 for a wrong method, 415 for a non-JSON body", async () => {
    expectError(await post(sim.url, ok, { path: "/embeddings" }), 404, "Not Found");
    const get = await fetch(sim.url + "/chat/completions", { headers: { authorization: "Bearer sk-other" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expectError(await post(sim.url, JSON.stringify(ok), { contentType: "text/plain" }), 415, /Content-Type: application\/json/);
  });

  it("GET /models/{id} and /user/balance answer; unknown model id is 404", async () => {
    const m = await fetch(sim.url + "/models/deepseek-v4-pro", { headers: { authorization: "Bearer sk-other" } });
    expect(((await m.json()) as { id: string }).id).toBe("deepseek-v4-pro");
    const b = await fetch(sim.url + "/user/balance", { headers: { authorization: "Bearer sk-other" } });
    expect(((await b.json()) as { is_available: boolean }).is_available).toBe(true);
    const x = await fetch(sim.url + "/models/gpt-4o", { headers: { authorization: "Bearer sk-other" } });
    expect(x.status).toBe(404);
  });
});

describe("authentication", () => {
  it("a wrong key is 401 with the live text, masked to its last 4 characters", async () => {
    expectError(await post(sim.url, ok, { key: "sk-wrong-9876wxyz" }), 401, "Authentication Fails, Your api key: ****wxyz is invalid", "authentication_error");
  });

  it("a missing Authorization header is 401 without a content type", async () => {
    const r = await post(sim.url, ok, { key: null });
    expect(r.status).toBe(401);
    expect(r.headers.get("content-type")).toBeNull();
    expect((r.json as { error: { type: string } }).error.type).toBe("authentication_error");
  });

  it("the openai SDK maps it to AuthenticationError", async () => {
    await expect(client(sim.url, "sk-nope").chat.completions.create(ok as never)).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it("without apiKeys any non-empty Bearer key is accepted", async () => {
    const open = await startSimulator({ policy: "echo" });
    try {
      expect((await post(open.url, ok, { key: "anything" })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

describe("validation (400 / 422)", () => {
  it("unknown model: 400 with the live text", async () => {
    expectError(await post(sim.url, { ...ok, model: "gpt-4o" }), 400, "The supported API model names are deepseek-flash, deepseek-v4-pro, but you passed gpt-4o.");
  });

  it("developer role: 400", async () => {
    expectError(await post(sim.url, { ...ok, messages: [{ role: "developer", content: "x" }, user("hi")] }), 400, /unsupported_developer_role/);
  });

  it("thinking that is not an object: 422", async () => {
    expectError(await post(sim.url, { ...ok, thinking: false }), 422, /thinking: invalid type: boolean `false`, expected struct ThinkingOptions/);
    expectError(await post(sim.url, { ...ok, thinking: { type: "on" } }), 422, /unknown variant `on`/);
  });

  it("max_tokens out of range: 400; not an integer: 422", async () => {
    expectError(await post(sim.url, { ...ok, max_tokens: 0 }), 400, "Invalid max_tokens value, the valid range of max_tokens is [1, 393216]");
    expectError(await post(sim.url, { ...ok, max_tokens: 393217 }), 400, /valid range of max_tokens/);
    expectError(await post(sim.url, { ...ok, max_tokens: 1.5 }), 422, /max_tokens: invalid type/);
  });

  it("missing reasoning_content on a tool-call turn in thinking mode: 400 with the live text", async () => {
    const messages = [user("hi"), { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: call.id, content: "x" }];
    expectError(await post(sim.url, { ...ok, messages }), 400, "The `reasoning_content` in the thinking mode must be passed back to the API.");
    // Thinking off, or reasoning_content present (even ""), is fine.
    expect((await post(sim.url, { ...ok, messages, thinking: { type: "disabled" } })).status).toBe(200);
    const withReasoning = [messages[0], { ...messages[1], reasoning_content: "" }, messages[2]];
    expect((await post(sim.url, { ...ok, messages: withReasoning })).status).toBe(200);
  });

  it("the reasoning_content rule can be switched off", async () => {
    const lax = await startSimulator({ policy: "echo", enforceReasoningContent: false });
    try {
      const messages = [user("hi"), { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: call.id, content: "x" }];
      expect((await post(lax.url, { ...ok, messages })).status).toBe(200);
    } finally {
      await lax.close();
    }
  });

  it("context too long: 400 with the live text, counting max_tokens", async () => {
    const r = await post(sim.url, { ...ok, max_tokens: 19_999 });
    expectError(
      r,
      400,
      /^This model's maximum context length is 20000 tokens\. However, you requested \d+ tokens \(\d+ in the messages, 19999 in the completion\)\. Please reduce the length of the messages or completion\.$/,
    );
    const m = /requested (\d+) tokens \((\d+) in the messages/.exec((r.json as { error: { message: string } }).error.message)!;
    expect(Number(m[1])).toBe(Number(m[2]) + 19_999);
    // Without max_tokens, the default (64K in thinking mode) is what counts.
    expectError(await post(sim.url, { model: "deepseek-flash", messages: [user("hi")] }), 400, /65536 in the completion/);
  });

  it("n, temperature, tool_choice in thinking mode, empty messages", async () => {
    expectError(await post(sim.url, { ...ok, n: 2 }), 400, "Invalid n value (currently only n = 1 is supported)");
    expectError(await post(sim.url, { ...ok, temperature: 2.5 }), 400, /temperature/);
    expectError(await post(sim.url, { ...ok, tools: [READ_FILE], tool_choice: "required" }), 400, /not supported in thinking mode/);
    expect((await post(sim.url, { ...ok, tools: [READ_FILE], tool_choice: "required", thinking: { type: "disabled" } })).status).toBe(200);
    expectError(await post(sim.url, { ...ok, messages: [] }), 400, /at least one message/);
  });

  it("malformed bodies: bad JSON 400, missing fields and unknown roles 422", async () => {
    expectError(await post(sim.url, "{not json"), 400, /Failed to parse the request body as JSON/);
    expectError(await post(sim.url, { messages: [user("x")] }), 422, /missing field `model`/);
    expectError(await post(sim.url, { model: "deepseek-flash" }), 422, /missing field `messages`/);
    expectError(await post(sim.url, { ...ok, messages: [{ role: "robot", content: "x" }] }), 422, /unknown variant `robot`/);
  });

  it("assistant with neither content nor tool calls; unanswered or orphan tool results", async () => {
    expectError(await post(sim.url, { ...ok, messages: [user("a"), { role: "assistant", content: null }, user("b")] }), 400, /content or tool_calls must be set/);
    const unanswered = [user("a"), { role: "assistant", content: "", reasoning_content: "r", tool_calls: [call] }, user("b")];
    expectError(await post(sim.url, { ...ok, messages: unanswered }), 400, /must be followed by tool messages/);
    const orphan = [user("a"), { role: "tool", tool_call_id: "call_x", content: "r" }];
    expectError(await post(sim.url, { ...ok, messages: orphan }), 400, /must be a response to a preceding message with 'tool_calls'/);
  });

  it("ignored fields do not fail: max_completion_tokens, penalties, extra keys", async () => {
    const r = await post(sim.url, { ...ok, max_completion_tokens: 1, frequency_penalty: 1, presence_penalty: 1, extra_body: { a: 1 } });
    expect(r.status).toBe(200);
    expect((r.json as { choices: { finish_reason: string }[] }).choices[0]!.finish_reason).toBe("stop");
  });

  it("user content given as parts is accepted", async () => {
    const r = await post(sim.url, { ...ok, messages: [{ role: "user", content: [{ type: "text", text: "parts" }] }] });
    expect(r.status).toBe(200);
    expect((r.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("echo: parts");
  });

  it("the openai SDK surfaces 400 and 422 as its typed errors", async () => {
    const c = client(sim.url);
    await expect(c.chat.completions.create({ ...ok, model: "nope" } as never)).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(c.chat.completions.create({ ...ok, thinking: false } as never)).rejects.toBeInstanceOf(OpenAI.UnprocessableEntityError);
  });

  it("a rejected request does not consume a script step", async () => {
    const s = await startSimulator({ script: [{ content: "scripted" }] });
    try {
      expect((await post(s.url, { ...ok, model: "nope" })).status).toBe(400);
      const r = await post(s.url, ok);
      expect((r.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("scripted");
    } finally {
      await s.close();
    }
  });
});

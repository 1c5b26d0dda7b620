import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { UsageSchema } from "../../src/wire/messages.js";
import { client, KEY, post, READ_FILE, sse, user } from "../helpers/sim.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

type Chunk = {
  id: string;
  object: string;
  created: number;
  model: string;
  system_fingerprint: string;
  choices: { index: number; delta: Record<string, unknown>; logprobs: null; finish_reason: string | null }[];
  usage?: Record<string, unknown> | null;
};

const REASONING = "The user wants two files read. I will call read_file twice, once for each file, and then compare them.";
const CONTENT = "Let me read both files before I change anything in them.";
const ARGS0 = '{"path": "src/greet.js", "note": "quote \\" and unicode é ✓"}';
const ARGS1 = '{"path": "README.md"}';

function toolReply() {
  return {
    reasoning: REASONING,
    content: CONTENT,
    tool_calls: [
      { name: "read_file", arguments: ARGS0 },
      { name: "read_file", arguments: ARGS1 },
    ],
  };
}

describe("streaming wire format (raw)", () => {
  it("thinking: role chunk, reasoning run, content run, tool-call fragments, final chunk with usage, [DONE]", async () => {
    sim = await startSimulator({ script: [toolReply()] });
    const r = await post(sim.url, {
      model: "deepseek-flash",
      messages: [user("read them")],
      tools: [READ_FILE],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const { data, done, order } = sse(r.text);
    expect(done).toBe(true);
    expect(order.at(-1)).toBe("done");
    const chunks = data as Chunk[];
    expect(chunks.length).toBeGreaterThan(10);

    // Every chunk: same id/created/model, one choice, usage null until the last.
    for (const c of chunks) {
      expect(c.id).toBe(chunks[0]!.id);
      expect(c.object).toBe("chat.completion.chunk");
      expect(c.created).toBe(chunks[0]!.created);
      expect(c.model).toBe("deepseek-flash");
      expect(c.system_fingerprint).toMatch(/^fp_/);
      expect(c.choices).toHaveLength(1);
    }
    expect(chunks[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(chunks.slice(0, -1).every((c) => c.usage === null && c.choices[0]!.finish_reason === null)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: null, reasoning_content: "" });
    expect(chunks.slice(1).every((c) => !("role" in c.choices[0]!.delta))).toBe(true);

    // Phases in order: reasoning, then content, then tool calls.
    const phase = (d: Record<string, unknown>): string =>
      d["tool_calls"] ? "T" : typeof d["reasoning_content"] === "string" && d["reasoning_content"] !== "" ? "R" : typeof d["content"] === "string" && d["content"] !== "" ? "C" : "-";
    const phases = chunks
      .slice(1, -1)
      .map((c) => phase(c.choices[0]!.delta))
      .join("");
    expect(phases).toMatch(/^R+C+T+$/);

    const deltas = chunks.map((c) => c.choices[0]!.delta);
    const reasoningDeltas = deltas.filter((d) => typeof d["reasoning_content"] === "string").map((d) => d["reasoning_content"] as string);
    const contentDeltas = deltas.filter((d) => typeof d["content"] === "string").map((d) => d["content"] as string);
    expect(reasoningDeltas.join("")).toBe(REASONING);
    expect(contentDeltas.join("")).toBe(CONTENT);
    expect(contentDeltas.filter((s) => s !== "").length).toBeGreaterThan(3); // really split
    // Reasoning deltas carry content: null and vice versa.
    for (const d of deltas.slice(1)) if (d["reasoning_content"] && d["reasoning_content"] !== "") expect(d["content"]).toBeNull();

    // Tool-call fragments joinable by index.
    const calls: { id?: string; name?: string; args: string; frags: number }[] = [];
    for (const d of deltas) {
      for (const tc of (d["tool_calls"] as { index: number; id?: string; type?: string; function: { name?: string; arguments: string } }[]) ?? []) {
        const slot = (calls[tc.index] ??= { args: "", frags: 0 });
        if (tc.id) {
          expect(slot.id).toBeUndefined();
          expect(tc.type).toBe("function");
          expect(tc.function.arguments).toBe("");
          slot.id = tc.id;
          slot.name = tc.function.name!;
        } else {
          expect(tc).toEqual({ index: tc.index, function: { arguments: expect.any(String) } });
        }
        slot.args += tc.function.arguments;
        slot.frags++;
      }
    }
    expect(calls).toHaveLength(2);
    expect(calls[0]!.args).toBe(ARGS0);
    expect(calls[1]!.args).toBe(ARGS1);
    expect(calls[0]!.id).toMatch(/^call_00_[A-Za-z0-9]{24}$/);
    expect(calls[1]!.id).toMatch(/^call_01_[A-Za-z0-9]{24}$/);
    expect(calls[0]!.name).toBe("read_file");
    expect(calls[0]!.frags).toBeGreaterThan(3);

    const last = chunks.at(-1)!;
    expect(last.choices[0]!.finish_reason).toBe("tool_calls");
    expect(last.choices[0]!.delta).toEqual({ content: "", reasoning_content: null });
    const usage = UsageSchema.parse(last.usage);
    expect(usage.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(10);
    expect(usage.completion_tokens).toBeGreaterThan(usage.completion_tokens_details!.reasoning_tokens!);
    expect(usage.prompt_cache_hit_tokens + usage.prompt_cache_miss_tokens).toBe(usage.prompt_tokens);
    expect(Object.keys(last.usage!).sort()).toEqual(
      ["completion_tokens", "completion_tokens_details", "prompt_cache_hit_tokens", "prompt_cache_miss_tokens", "prompt_tokens", "prompt_tokens_details", "total_tokens"].sort(),
    );
  });

  it("without include_usage, only the last chunk has a usage key", async () => {
    sim = await startSimulator({ policy: "echo" });
    const r = await post(sim.url, { model: "deepseek-flash", messages: [user("hi there")], stream: true });
    const chunks = sse(r.text).data as Chunk[];
    expect(chunks.slice(0, -1).every((c) => !("usage" in c))).toBe(true);
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: expect.any(Number) });
  });

  it("thinking off: no reasoning_content anywhere, first delta has role and empty content", async () => {
    sim = await startSimulator({ policy: "echo" });
    const r = await post(sim.url, { model: "deepseek-flash", messages: [user("hi there")], stream: true, thinking: { type: "disabled" } });
    const chunks = sse(r.text).data as Chunk[];
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    expect(r.text).not.toContain("reasoning_content");
    expect(chunks.map((c) => c.choices[0]!.delta["content"] ?? "").join("")).toBe("echo: hi there");
    expect((chunks.at(-1)!.usage as { completion_tokens_details: { reasoning_tokens: number } }).completion_tokens_details.reasoning_tokens).toBe(0);
  });
});

describe("openai SDK against the simulator", () => {
  it("streams: deltas join to the reply, usage arrives on the last chunk", async () => {
    sim = await startSimulator({ script: [toolReply()] });
    const stream = await client(sim.url).chat.completions.create({
      model: "deepseek-flash",
      messages: [user("read them")],
      tools: [READ_FILE],
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = "";
    let reasoning = "";
    const args: string[] = [];
    const ids: string[] = [];
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      const choice = chunk.choices[0]!;
      const delta = choice.delta as typeof choice.delta & { reasoning_content?: string | null };
      content += delta.content ?? "";
      reasoning += delta.reasoning_content ?? "";
      for (const tc of delta.tool_calls ?? []) {
        args[tc.index] = (args[tc.index] ?? "") + (tc.function?.arguments ?? "");
        if (tc.id) ids[tc.index] = tc.id;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(content).toBe(CONTENT);
    expect(reasoning).toBe(REASONING);
    expect(args).toEqual([ARGS0, ARGS1]);
    expect(ids).toHaveLength(2);
    expect(finish).toBe("tool_calls");
    expect(UsageSchema.parse(usage).prompt_tokens).toBeGreaterThan(0);
  });

  it("non-streaming: chat.completion with reasoning_content, indexed tool_calls and full usage", async () => {
    sim = await startSimulator({ script: [toolReply()] });
    const res = await client(sim.url).chat.completions.create({ model: "deepseek-v4-pro", messages: [user("read them")], tools: [READ_FILE] });
    expect(res.object).toBe("chat.completion");
    expect(res.model).toBe("deepseek-v4-pro");
    expect(res.choices).toHaveLength(1);
    const msg = res.choices[0]!.message as (typeof res.choices)[0]["message"] & { reasoning_content?: string };
    expect(msg.role).toBe("assistant");
    expect(msg.content).toBe(CONTENT);
    expect(msg.reasoning_content).toBe(REASONING);
    expect(msg.tool_calls?.map((c) => (c as { index?: number }).index)).toEqual([0, 1]);
    expect(msg.tool_calls?.map((c) => (c.type === "function" ? c.function.arguments : ""))).toEqual([ARGS0, ARGS1]);
    expect(res.choices[0]!.finish_reason).toBe("tool_calls");
    const usage = UsageSchema.parse(res.usage);
    expect(usage.prompt_tokens_details?.cached_tokens).toBe(usage.prompt_cache_hit_tokens);
  });

  it("lists the models", async () => {
    sim = await startSimulator();
    const list = await client(sim.url).models.list();
    expect(list.data.map((m) => m.id)).toEqual(["deepseek-flash", "deepseek-v4-pro"]);
    expect((list.data[0] as unknown as { context_window: number }).context_window).toBe(1048576);
  });

  it("accepts the /v1 prefix and the legacy deepseek-v4-flash name", async () => {
    sim = await startSimulator({ policy: "echo" });
    const res = await client(sim.url + "/v1").chat.completions.create({ model: "deepseek-v4-flash", messages: [user("ping")] });
    expect(res.choices[0]!.message.content).toBe("echo: ping");
    expect(res.model).toBe("deepseek-flash");
  });
});

describe("replies and budgets", () => {
  it("reasoning counts against max_tokens: a tiny cap gives reasoning only and finish length", async () => {
    sim = await startSimulator({ script: [{ reasoning: REASONING, content: CONTENT }] });
    const r = await post(sim.url, { model: "deepseek-flash", messages: [user("q")], max_tokens: 5 });
    const j = r.json as { choices: { message: { content: string; reasoning_content: string }; finish_reason: string }[]; usage: { completion_tokens: number; completion_tokens_details: { reasoning_tokens: number } } };
    expect(j.choices[0]!.finish_reason).toBe("length");
    expect(j.choices[0]!.message.content).toBe("");
    expect(REASONING.startsWith(j.choices[0]!.message.reasoning_content)).toBe(true);
    expect(j.choices[0]!.message.reasoning_content.length).toBeLessThan(REASONING.length);
    expect(j.usage.completion_tokens).toBe(5);
    expect(j.usage.completion_tokens_details.reasoning_tokens).toBe(5);
  });

  it("content is cut at the cap after the reasoning, and tool calls that do not fit are dropped", async () => {
    sim = await startSimulator({ script: [{ reasoning: "Short.", content: CONTENT, tool_calls: [{ name: "read_file", arguments: ARGS1 }] }] });
    const r = await post(sim.url, { model: "deepseek-flash", messages: [user("q")], max_tokens: 8 });
    const j = r.json as { choices: { message: { content: string; tool_calls?: unknown[] }; finish_reason: string }[]; usage: { completion_tokens: number } };
    expect(j.choices[0]!.finish_reason).toBe("length");
    expect(CONTENT.startsWith(j.choices[0]!.message.content)).toBe(true);
    expect(j.choices[0]!.message.content.length).toBeGreaterThan(0);
    expect(j.choices[0]!.message.tool_calls).toBeUndefined();
    expect(j.usage.completion_tokens).toBe(8);
  });

  it("reasoning_effort none turns thinking off", async () => {
    sim = await startSimulator({ script: [{ reasoning: REASONING, content: "hi" }] });
    const r = await post(sim.url, { model: "deepseek-flash", messages: [user("q")], reasoning_effort: "none" });
    const j = r.json as { choices: { message: Record<string, unknown> }[]; usage: { completion_tokens_details: { reasoning_tokens: number } } };
    expect(j.choices[0]!.message).toEqual({ role: "assistant", content: "hi" });
    expect(j.usage.completion_tokens_details.reasoning_tokens).toBe(0);
  });

  it("generates reasoning in thinking mode when the reply has none", async () => {
    sim = await startSimulator({ policy: "echo" });
    const r = await post(sim.url, { model: "deepseek-flash", messages: [user("q")] });
    const msg = (r.json as { choices: { message: { reasoning_content: string } }[] }).choices[0]!.message;
    expect(msg.reasoning_content.length).toBeGreaterThan(10);
  });

  it("plays malformed arguments and a forced finish reason as scripted", async () => {
    sim = await startSimulator({
      script: [{ tool_calls: [{ name: "read_file", arguments: '{"path": "a', id: "call_00_fixedidfixedidfixedid12" }] }, { content: "partial", finish_reason: "insufficient_system_resource" }],
    });
    const c = client(sim.url);
    const a = await c.chat.completions.create({ model: "deepseek-flash", messages: [user("q")], tools: [READ_FILE] });
    const call = a.choices[0]!.message.tool_calls![0]!;
    expect(call.id).toBe("call_00_fixedidfixedidfixedid12");
    expect(call.type === "function" && call.function.arguments).toBe('{"path": "a');
    const b = await c.chat.completions.create({ model: "deepseek-flash", messages: [user("q")] });
    expect(b.choices[0]!.finish_reason).toBe("insufficient_system_resource");
  });
});

describe("script, log and concurrency", () => {
  it("consumes the script in order, then falls back to the policy; push() appends", async () => {
    sim = await startSimulator({ policy: "echo", script: [{ content: "one" }] });
    sim.push({ content: "two" });
    const c = client(sim.url);
    const texts: (string | null)[] = [];
    for (let i = 0; i < 3; i++) texts.push((await c.chat.completions.create({ model: "deepseek-flash", messages: [user(`m${i}`)] })).choices[0]!.message.content);
    expect(texts).toEqual(["one", "two", "echo: m2"]);
  });

  it("logs every request with its raw body, headers, status and usage", async () => {
    sim = await startSimulator({ policy: "echo" });
    const body = { model: "deepseek-flash", messages: [user("hello")], extra_body: { x: 1 }, max_completion_tokens: 5 };
    await post(sim.url, body);
    await post(sim.url, { model: "nope", messages: [user("x")] });
    await fetch(sim.url + "/nowhere");
    expect(sim.requests).toHaveLength(3);
    expect(sim.requests[0]!.body).toEqual(body);
    expect(sim.requests[0]!.headers["authorization"]).toBe(`Bearer ${KEY}`);
    expect(sim.requests[0]!.status).toBe(200);
    expect(sim.requests[0]!.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(sim.requests[1]!.status).toBe(400);
    expect(sim.requests[1]!.usage).toBeUndefined();
    expect(sim.requests[2]!.status).toBe(404);
  });

  it("serves many concurrent requests", async () => {
    sim = await startSimulator({ policy: "echo" });
    const c = client(sim.url);
    const results = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        if (i % 2 === 0) {
          const s = await c.chat.completions.create({ model: "deepseek-flash", messages: [user(`n${i}`)], stream: true });
          let text = "";
          for await (const ch of s) text += ch.choices[0]?.delta.content ?? "";
          return text;
        }
        return (await c.chat.completions.create({ model: "deepseek-flash", messages: [user(`n${i}`)] })).choices[0]!.message.content;
      }),
    );
    expect(results).toEqual(Array.from({ length: 24 }, (_, i) => `echo: n${i}`));
    expect(sim.requests).toHaveLength(24);
  });
});

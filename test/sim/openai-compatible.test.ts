// The simulator's openai-compatible mode: a server that speaks the OpenAI wire format but is not
// DeepSeek's. Its usage, its missing usage, its `reasoning` field, its lenience about DeepSeek-only fields,
// and llama.cpp's and vLLM's context-overflow bodies, over real HTTP.
import { afterEach, describe, expect, it } from "vitest";
import { LLAMA_CPP_OVERFLOW, startSimulator, type Simulator, VLLM_OVERFLOW } from "../../sim/index.js";
import type { SimOptions } from "../../sim/types.js";
import { post, READ_FILE, sse, user } from "../helpers/sim.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(opts: SimOptions): Promise<Simulator> {
  sim = await startSimulator({ policy: "echo", ...opts });
  return sim;
}

const body = (extra: object = {}): object => ({ model: "local-model", messages: [user("hi")], ...extra });

describe("usage", () => {
  it("has cached tokens in prompt_tokens_details and no DeepSeek cache fields; the deepseek mode keeps them", async () => {
    const s = await start({ mode: "openai-compatible" });
    const r = await post(s.url, body(), { key: null });
    expect(r.status).toBe(200);
    const usage = (r.json as { usage: Record<string, unknown> }).usage;
    expect(Object.keys(usage).sort()).toEqual(["completion_tokens", "completion_tokens_details", "prompt_tokens", "prompt_tokens_details", "total_tokens"]);
    expect(usage["prompt_tokens_details"]).toEqual({ cached_tokens: 0 });

    const d = await startSimulator({ policy: "echo" });
    try {
      const dr = await post(d.url, { ...body(), model: "deepseek-flash" });
      expect(Object.keys((dr.json as { usage: object }).usage)).toContain("prompt_cache_hit_tokens");
    } finally {
      await d.close();
    }
  });

  it("omitUsage: no usage in a whole response, nor in any chunk of a stream with include_usage", async () => {
    const s = await start({ mode: "openai-compatible", omitUsage: true });
    const whole = await post(s.url, body());
    expect(whole.status).toBe(200);
    expect(whole.json).not.toHaveProperty("usage");
    const streamed = await post(s.url, body({ stream: true, stream_options: { include_usage: true } }));
    const events = sse(streamed.text);
    expect(events.done).toBe(true);
    expect(events.data.length).toBeGreaterThan(1);
    for (const c of events.data) expect(c).not.toHaveProperty("usage");
    // What the sim counted is still recorded for tests.
    expect(s.requests[1]!.usage!.prompt_tokens).toBeGreaterThan(0);
  });
});

describe("requests", () => {
  it("accepts any model, no key, no DeepSeek fields, and a tool-call turn sent back without reasoning", async () => {
    const s = await start({ mode: "openai-compatible" });
    const call = { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } };
    const r = await post(
      s.url,
      body({
        tools: [READ_FILE],
        messages: [user("read a"), { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "call_1", content: "A" }],
      }),
      { key: null },
    );
    expect(r.status).toBe(200);
    expect((r.json as { model: string }).model).toBe("local-model");
  });

  it("asks for a key when keys are given", async () => {
    const s = await start({ mode: "openai-compatible", apiKeys: ["k"] });
    expect((await post(s.url, body(), { key: null })).status).toBe(401);
  });
});

describe("reasoning field", () => {
  it("plays reasoning as `reasoning`, whole and streamed", async () => {
    const s = await start({
      mode: "openai-compatible",
      reasoningField: "reasoning",
      script: [
        { content: "A", reasoning: "think" },
        { content: "B", reasoning: "more" },
      ],
    });
    const whole = await post(s.url, body());
    const message = (whole.json as { choices: { message: Record<string, unknown> }[] }).choices[0]!.message;
    expect(message["reasoning"]).toBe("think");
    expect(message).not.toHaveProperty("reasoning_content");
    const streamed = sse((await post(s.url, body({ stream: true }))).text).data as { choices: { delta: Record<string, unknown> }[] }[];
    const deltas = streamed.map((c) => c.choices[0]!.delta);
    expect(deltas.map((d) => d["reasoning"] ?? "").join("")).toBe("more");
    for (const d of deltas) expect(d).not.toHaveProperty("reasoning_content");
  });
});

describe("context overflow", () => {
  const long = "word ".repeat(400);

  it("answers vLLM's body by default, counting max_tokens", async () => {
    const s = await start({ mode: "openai-compatible", contextWindow: 300 });
    const r = await post(s.url, body({ messages: [user("hi")], max_tokens: 400 }));
    expect(r.status).toBe(400);
    const json = r.json as typeof VLLM_OVERFLOW;
    expect(Object.keys(json)).toEqual(Object.keys(VLLM_OVERFLOW));
    expect(json.type).toBe("BadRequestError");
    expect(json.message).toMatch(/^This model's maximum context length is 300 tokens\. However, you requested \d+ tokens \(\d+ in the messages, 400 in the completion\)/);
    expect((await post(s.url, body({ messages: [user("hi")] }))).status).toBe(200);
  });

  it("answers llama.cpp's body with the prompt's count and the window", async () => {
    const s = await start({ mode: "openai-compatible", overflow: "llama.cpp", contextWindow: 300 });
    const r = await post(s.url, body({ messages: [user(long)] }));
    expect(r.status).toBe(400);
    const json = r.json as typeof LLAMA_CPP_OVERFLOW;
    expect(Object.keys(json.error)).toEqual(Object.keys(LLAMA_CPP_OVERFLOW.error));
    expect(json.error.message).toBe("the request exceeds the available context size, try increasing it");
    expect(json.error.type).toBe("exceed_context_size_error");
    expect(json.error.n_ctx).toBe(300);
    expect(json.error.n_prompt_tokens).toBeGreaterThan(300);
  });

  it("a script step sends either body as a status fault", async () => {
    const s = await start({ script: [{ fault: { kind: "status", status: 400, body: LLAMA_CPP_OVERFLOW } }, { fault: { kind: "status", status: 400, body: VLLM_OVERFLOW } }] });
    const a = await post(s.url, { ...body(), model: "deepseek-flash" });
    expect([a.status, a.json]).toEqual([400, LLAMA_CPP_OVERFLOW]);
    const b = await post(s.url, { ...body(), model: "deepseek-flash" });
    expect([b.status, b.json]).toEqual([400, VLLM_OVERFLOW]);
    expect(VLLM_OVERFLOW.message).toBe(
      "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
    );
  });
});

import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { client, KEY, post, sse, user } from "../helpers/sim.js";
import { waitFor } from "../helpers/wait.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const streamParams = () => body(true) as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
const body = (stream = false) => ({ model: "deepseek-flash", messages: [user("hello")], stream, thinking: { type: "disabled" } });

async function rawStream(url: string, payload: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(url + "/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    body: JSON.stringify(payload),
    ...(signal ? { signal } : {}),
  });
}

/** Reads a body until it ends or breaks; says which. */
async function readAll(res: Response): Promise<{ text: string; error?: unknown }> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text };
      text += dec.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

describe("status faults", () => {
  it("429 with Retry-After, then the next step answers", async () => {
    sim = await startSimulator({ policy: "echo", script: [{ fault: { kind: "status", status: 429, retryAfter: "2" } }] });
    const r = await post(sim.url, body());
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("2");
    expect((r.json as { error: { type: string; param: null } }).error).toMatchObject({ type: "rate_limit_error", param: null });
    const again = await post(sim.url, body());
    expect(again.status).toBe(200);
    expect(sim.requests.map((q) => q.status)).toEqual([429, 200]);
  });

  it("the openai SDK sees typed errors: 429 RateLimitError (with headers), 500/503 InternalServerError, 402 APIError", async () => {
    sim = await startSimulator({
      script: [
        { fault: { kind: "status", status: 429, retryAfter: "7" } },
        { fault: { kind: "status", status: 500 } },
        { fault: { kind: "status", status: 503 } },
        { fault: { kind: "status", status: 402, body: { error: { message: "Insufficient Balance", type: "unknown_error", param: null, code: "invalid_request_error" } } } },
      ],
    });
    const c = client(sim.url);
    const e429 = await c.chat.completions.create(body() as never).catch((e: unknown) => e);
    expect(e429).toBeInstanceOf(OpenAI.RateLimitError);
    expect((e429 as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after")).toBe("7");
    await expect(c.chat.completions.create(body() as never)).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    const e503 = await c.chat.completions.create(body() as never).catch((e: unknown) => e);
    expect((e503 as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    const e402 = await c.chat.completions.create(body() as never).catch((e: unknown) => e);
    expect(e402).toBeInstanceOf(OpenAI.APIError);
    expect((e402 as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect((e402 as Error).message).toContain("Insufficient Balance");
  });

  it("a status fault after keep-alives rides in the stream as an error event", async () => {
    sim = await startSimulator({
      script: [
        {
          faults: [
            { kind: "keepalive", count: 2, everyMs: 5 },
            { kind: "status", status: 503 },
          ],
        },
      ],
    });
    const stream = await client(sim.url).chat.completions.create(streamParams());
    await expect(async () => {
      for await (const _ of stream) void _;
    }).rejects.toBeInstanceOf(OpenAI.APIError);
  });
});

describe("connection faults", () => {
  it("drop: the stream starts, sends N chunks, then the socket dies without [DONE]", async () => {
    sim = await startSimulator({ script: [{ faults: [{ kind: "drop", afterChunks: 3 }], reply: { content: "a long answer that is split into many deltas for the client" } }] });
    const res = await rawStream(sim.url, body(true));
    expect(res.status).toBe(200);
    const { text, error } = await readAll(res);
    expect(error).toBeDefined();
    const events = sse(text);
    expect(events.data).toHaveLength(3);
    expect(events.done).toBe(false);
  });

  it("drop: the openai SDK stream throws after yielding the first chunks", async () => {
    sim = await startSimulator({ script: [{ faults: [{ kind: "drop", afterChunks: 2 }], reply: { content: "one two three four five six seven eight" } }] });
    const stream = await client(sim.url).chat.completions.create(streamParams());
    let seen = 0;
    await expect(async () => {
      for await (const _ of stream) seen++;
    }).rejects.toThrow();
    expect(seen).toBe(2);
  });

  it("drop on a non-streaming request cuts the JSON body", async () => {
    sim = await startSimulator({ script: [{ fault: { kind: "drop", afterChunks: 1 } }], policy: "echo" });
    await expect(client(sim.url).chat.completions.create(body() as never)).rejects.toThrow();
  });

  it("reset: the connection dies before any response; the next request works", async () => {
    sim = await startSimulator({ policy: "echo", script: [{ fault: { kind: "reset" } }] });
    await expect(client(sim.url).chat.completions.create(body() as never)).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
    expect(sim.requests[0]!.status).toBe(0);
    const ok = await client(sim.url).chat.completions.create(body() as never);
    expect(ok.choices[0]!.message.content).toBe("echo: hello");
  });
});

describe("timing faults", () => {
  it("stall: headers arrive, then nothing for the stall time, then the answer", async () => {
    sim = await startSimulator({ policy: "echo", script: [{ fault: { kind: "stall", ms: 400 } }] });
    const t0 = Date.now();
    const res = await rawStream(sim.url, body(true));
    const headersAt = Date.now() - t0;
    expect(res.status).toBe(200);
    expect(headersAt).toBeLessThan(300);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
    expect(new TextDecoder().decode(first.value)).toMatch(/^data: /);
    await reader.cancel();
  });

  it("stall: a client idle timeout can abort it, and the simulator keeps serving", async () => {
    sim = await startSimulator({ policy: "echo", script: [{ fault: { kind: "stall", ms: 5_000 } }] });
    const ac = new AbortController();
    const res = await rawStream(sim.url, body(true), ac.signal);
    const timer = setTimeout(() => ac.abort(), 150);
    const { error } = await readAll(res);
    clearTimeout(timer);
    expect(error).toBeDefined();
    const t0 = Date.now();
    expect((await post(sim.url, body())).status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it("keepalive (streaming): `: keep-alive` comments come before the first data chunk; the SDK ignores them", async () => {
    sim = await startSimulator({ policy: "echo", script: [{ fault: { kind: "keepalive", count: 3, everyMs: 20 } }, { fault: { kind: "keepalive", count: 2, everyMs: 10 } }] });
    const r = await post(sim.url, body(true));
    const events = sse(r.text);
    expect(events.comments).toEqual([": keep-alive", ": keep-alive", ": keep-alive"]);
    expect(events.order.slice(0, 4)).toEqual(["comment", "comment", "comment", "data"]);
    expect(events.done).toBe(true);
    const stream = await client(sim.url).chat.completions.create(streamParams());
    let text = "";
    for await (const ch of stream) text += ch.choices[0]?.delta.content ?? "";
    expect(text).toBe("echo: hello");
  });

  it("keepalive (non-streaming): blank lines before the JSON body, which still parses", async () => {
    sim = await startSimulator({ policy: "echo", script: [{ fault: { kind: "keepalive", count: 3, everyMs: 10 } }, { fault: { kind: "keepalive", count: 2, everyMs: 10 } }] });
    const r = await post(sim.url, body());
    expect(r.text.startsWith("\n\n\n{")).toBe(true);
    expect((r.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("echo: hello");
    const res = await client(sim.url).chat.completions.create(body() as never);
    expect(res.choices[0]!.message.content).toBe("echo: hello");
  });

  it("delay: nothing, not even headers, until the delay has passed", async () => {
    sim = await startSimulator({ policy: "echo", script: [{ fault: { kind: "delay", ms: 300 } }] });
    const t0 = Date.now();
    const res = await rawStream(sim.url, body());
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    expect(res.status).toBe(200);
  });

  it("faults combine in order and are followed by the step's reply", async () => {
    sim = await startSimulator({
      policy: "echo",
      script: [
        {
          faults: [
            { kind: "delay", ms: 50 },
            { kind: "keepalive", count: 1, everyMs: 5 },
          ],
          reply: { content: "scripted after faults" },
        },
      ],
    });
    const r = await post(sim.url, body(true));
    const events = sse(r.text);
    expect(events.comments).toHaveLength(1);
    const text = (events.data as { choices: { delta: { content?: string } }[] }[]).map((c) => c.choices[0]!.delta.content ?? "").join("");
    expect(text).toBe("scripted after faults");
  });
});

describe("faults from a policy", () => {
  it("a policy answers each request by its content, faults included; a scripted step without a reply still gets the policy's", async () => {
    sim = await startSimulator({
      script: [{ fault: { kind: "delay", ms: 1 } }],
      policy: (req) => {
        const text = req.messages.at(-1)!.content as string;
        if (text === "fail") return { fault: { kind: "status", status: 503 } };
        return { faults: [{ kind: "delay", ms: 1 }], reply: { content: `policy: ${text}` } };
      },
    });
    const ask = (text: string) => post(sim!.url, { ...body(), messages: [user(text)] });
    const scripted = await ask("first");
    expect(scripted.status).toBe(200);
    expect((scripted.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("policy: first");
    expect((await ask("fail")).status).toBe(503);
    const answered = await ask("ok");
    expect((answered.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("policy: ok");
  });

  it("each request records how many others were still being answered when it arrived", async () => {
    sim = await startSimulator({ policy: () => ({ faults: [{ kind: "delay", ms: 1500 }], reply: { content: "late" } }) });
    const url = sim.url;
    const first = post(url, body());
    await waitFor(() => sim!.requests.length === 1 && sim!.requests[0]!.overlapping !== undefined, "the first request to arrive");
    await Promise.all([first, post(url, body())]);
    await post(url, body());
    expect(sim.requests.map((r) => r.overlapping)).toEqual([0, 1, 0]);
  });
});

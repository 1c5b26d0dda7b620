// `provider`: which server base-url names. DeepSeek (the default) is sent its own request fields; a
// server that speaks the OpenAI format but is not DeepSeek's (the simulator's openai-compatible mode)
// is sent none of them, its `reasoning` is read like DeepSeek's `reasoning_content`, and on this
// machine it needs no key. The request bodies are the simulator's.
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const bodies = (s: Simulator) => s.requests.map((r) => r.body as ChatRequest);
const readA = { reasoning: "read a first", tool_calls: [{ name: "read_file", arguments: '{"path":"a.txt"}' }] };

describe("request fields", () => {
  it("openai-compatible: no thinking, no reasoning_effort, in any request; `reasoning` is sent back as reasoning_content", async () => {
    sim = await startSimulator({ mode: "openai-compatible", reasoningField: "reasoning", script: [readA, { content: "done" }] });
    const project = await tempProject();
    const result = await runHelInProcess({ args: ["-C", project, "--provider", "openai-compatible", "--model", "local-model", "read a.txt"], baseUrl: sim.url });
    expect(result.stderr).not.toMatch(/hel: /);
    expect(result.code).toBe(0);
    const [first, second] = bodies(sim);
    expect(bodies(sim)).toHaveLength(2);
    for (const body of [first!, second!]) {
      expect(body).not.toHaveProperty("thinking");
      expect(body).not.toHaveProperty("reasoning_effort");
      expect(Object.keys(body)).toEqual(["model", "messages", "tools", "max_tokens", "stream", "stream_options"]);
    }
    expect(first!.model).toBe("local-model");
    expect(second!.messages[2]).toMatchObject({ role: "assistant", reasoning_content: "read a first" });
  });

  it("openai-compatible asks for the plain output limit, at most a quarter of --context-window, so a 32K vLLM server that adds max_tokens to the prompt answers", async () => {
    sim = await startSimulator({ mode: "openai-compatible", overflow: "vllm", contextWindow: 32_768, script: [{ content: "a" }, { content: "b" }, { content: "c" }] });
    const project = await tempProject();
    const args = ["-C", project, "--provider", "openai-compatible", "--model", "local-model"];
    expect((await runHelInProcess({ args: [...args, "hi"], baseUrl: sim.url })).code).toBe(0);
    expect((await runHelInProcess({ args: [...args, "--context-window", "16000", "hi"], baseUrl: sim.url })).code).toBe(0);
    expect((await runHelInProcess({ args: [...args, "--max-output-tokens", "2000", "hi"], baseUrl: sim.url })).code).toBe(0);
    expect(bodies(sim).map((b) => b.max_tokens)).toEqual([8192, 4000, 2000]);
    expect(sim.requests.map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it("HEL_PROVIDER sets it too; the default, deepseek, is sent both fields as before", async () => {
    sim = await startSimulator({ mode: "openai-compatible", script: [{ content: "a" }, { content: "b" }] });
    const project = await tempProject();
    expect((await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: sim.url, env: { HEL_PROVIDER: "openai-compatible" } })).code).toBe(0);
    expect((await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: sim.url })).code).toBe(0);
    const [compatible, deepseek] = bodies(sim);
    expect(compatible).not.toHaveProperty("thinking");
    expect(deepseek).toMatchObject({ thinking: { type: "enabled" }, reasoning_effort: "high" });
  });

  it("--effort none with openai-compatible sends no thinking field either", async () => {
    sim = await startSimulator({ mode: "openai-compatible", script: [{ content: "a" }] });
    const project = await tempProject();
    expect((await runHelInProcess({ args: ["-C", project, "--provider", "openai-compatible", "--effort", "none", "hi"], baseUrl: sim.url })).code).toBe(0);
    expect(bodies(sim)[0]).not.toHaveProperty("thinking");
  });

  it("a provider that is neither is refused, naming the choices", async () => {
    const result = await runHelInProcess({ args: ["--provider", "openai", "hi"], baseUrl: "http://127.0.0.1:9" }).catch((e: Error) => ({ code: 2, stdout: "", stderr: e.message }));
    expect(result.stderr).toMatch(/deepseek, openai-compatible/);
  });
});

describe("no key for a local server", () => {
  it("openai-compatible on loopback runs without DEEPSEEK_API_KEY and sends no Authorization header", async () => {
    sim = await startSimulator({ mode: "openai-compatible", script: [{ content: "local answer" }] });
    const project = await tempProject();
    const result = await runHel({ args: ["-C", project, "hi"], baseUrl: sim.url, env: { DEEPSEEK_API_KEY: undefined, HEL_PROVIDER: "openai-compatible" } });
    expect(result.stderr).not.toMatch(/hel: /);
    expect(result.stdout).toBe("local answer\n");
    expect(result.code).toBe(0);
    expect(sim.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("still needs the key for deepseek, and for openai-compatible off this machine", async () => {
    const deepseek = await runHel({ args: ["hi"], baseUrl: "http://127.0.0.1:9", env: { DEEPSEEK_API_KEY: undefined } });
    expect(deepseek.stderr).toMatch(/^hel: DEEPSEEK_API_KEY is not set/);
    const remote = await runHel({ args: ["hi"], baseUrl: "https://example.com/v1", env: { DEEPSEEK_API_KEY: undefined, HEL_PROVIDER: "openai-compatible" } });
    expect(remote.stderr).toMatch(/^hel: DEEPSEEK_API_KEY is not set/);
    expect(remote.code).toBe(2);
  });
});

// The one line a person reads when a server that is not DeepSeek's fails (provider openai-compatible,
// the simulator's openai-compatible mode): it names the host that answered and advises for it, never
// DeepSeek's platform; DeepSeek's own texts are test/cli/errors.test.ts's, unchanged. hel runs in this
// process against the simulator (helpers/conversation.ts).
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type SimFault, startSimulator, type Simulator, VLLM_OVERFLOW } from "../../sim/index.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const oneLine = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("hel: "));

async function failing(status: number, extra: Partial<Extract<SimFault, { kind: "status" }>> = {}, provider = "openai-compatible"): Promise<{ line: string; host: string }> {
  const fault = { fault: { kind: "status" as const, status, ...extra } };
  // Enough of them that the retried statuses give up too.
  sim = await startSimulator({ mode: "openai-compatible", script: [fault, fault, fault, fault] });
  const project = await tempProject();
  const result = await runHelInProcess({ args: ["-C", project, "--provider", provider, "hi"], baseUrl: sim.url });
  expect(result.code).toBe(1);
  const lines = oneLine(result.stderr);
  expect(lines).toHaveLength(1);
  return { line: lines[0]!, host: new URL(sim.url).host };
}

describe("a server that is not DeepSeek's is named, with its own advice", () => {
  it.each([
    [401, (h: string) => `hel: ${h} rejected the API key (401: Authentication Fails, Your api key: ****abcd is invalid) — export the key it expects as DEEPSEEK_API_KEY (hel sends that variable to --base-url)`],
    [402, (h: string) => `hel: ${h} says the account is out of credit (402: Insufficient Balance) — top up with that provider, then resume the session`],
    [400, (h: string) => `hel: ${h} refused the request (400: Invalid request body format) — check --model (a model ${h} serves); if it persists, rerun with HEL_DEBUG=1 and report it`],
    [429, (h: string) => `hel: ${h} is rate-limiting this account (429) after 4 tries — wait a minute, then resume the session`],
    [
      500,
      (h: string) => `hel: the server at ${h} failed (500: Server Error: the server encountered an issue, please retry your request after a brief wait) after 4 tries — see that server's own log (is its model loaded?)`,
    ],
  ])("HTTP %i", async (status, expected) => {
    const { line, host } = await failing(status);
    expect(line).toBe(expected(host));
    expect(line).not.toMatch(/DeepSeek|deepseek\.com/);
  });

  it("the default provider keeps DeepSeek's words for the same failure", async () => {
    const { line } = await failing(402, {}, "deepseek");
    expect(line).toBe("hel: the DeepSeek account is out of balance (402) — top up at platform.deepseek.com, then resume the session");
  });

  it("vLLM's flat error body is read: its message reaches the line, and it is known as a context error", async () => {
    const { line } = await failing(400, { body: VLLM_OVERFLOW });
    expect(line).toBe(`hel: the conversation is longer than the model's context window (400: ${VLLM_OVERFLOW.message}) — start a new session, or lower --max-output-tokens`);
  });

  it("a local server that does not answer: is it running?", async () => {
    // A port nothing listens on: taken, then let go.
    const server = createServer().listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const port = (server.address() as { port: number }).port;
    await new Promise((r) => server.close(r));
    const project = await tempProject();
    const url = `http://127.0.0.1:${port}`;
    const result = await runHelInProcess({ args: ["-C", project, "--provider", "openai-compatible", "hi"], baseUrl: url, env: { HEL_RETRY_BASE_MS: "1" } });
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toEqual([expect.stringMatching(new RegExp(`^hel: cannot reach ${url} after \\d+ tries \\(ECONNREFUSED\\) — is the server at ${url} running\\?$`))]);
  });
});

// Failures of the API, end to end: which are retried (counted at the simulator), the exit status and
// the one line a person reads. hel runs in this process as the command runs it
// (helpers/conversation.ts), against the simulator; usage errors, an unreachable server (HEL_DEBUG's
// stack) and signals are test/e2e/errors.test.ts's.
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type SimFault, type Simulator } from "../../sim/index.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const oneLine = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("hel: "));

async function runWith(steps: { fault: SimFault }[] | object[], extraArgs: string[] = [], env: Record<string, string> = {}) {
  sim = await startSimulator({ script: steps as never });
  const project = await tempProject();
  const result = await runHelInProcess({ args: ["-C", project, "--json", ...extraArgs, "hi"], baseUrl: sim.url, env });
  return { result, project, requests: sim.requests.length };
}

describe("retries", () => {
  it.each([429, 500, 502, 503, 504])("HTTP %i is retried, then the answer arrives", async (status) => {
    const { result, requests } = await runWith([{ fault: { kind: "status", status } }, { content: "ok" }]);
    expect(result.code).toBe(0);
    expect(requests).toBe(2);
    expect(JSON.parse(result.stdout).answer).toBe("ok");
    expect(result.stderr).toMatch(new RegExp(`HTTP ${status}, retrying in`));
  });

  it("Retry-After is honoured", async () => {
    const started = Date.now();
    const { result, requests } = await runWith([{ fault: { kind: "status", status: 429, retryAfter: "1" } }, { content: "ok" }]);
    expect(result.code).toBe(0);
    expect(requests).toBe(2);
    expect(result.stderr).toMatch(/retrying in 1\.0 s/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it("a connection reset and insufficient_system_resource before any answer are retried", async () => {
    const { result, requests } = await runWith([{ fault: { kind: "reset" } }, { content: "", finish_reason: "insufficient_system_resource" }, { content: "ok" }]);
    expect(result.code).toBe(0);
    expect(requests).toBe(3);
    expect(JSON.parse(result.stdout).answer).toBe("ok");
  });

  it("insufficient_system_resource after part of the answer streamed is not retried", async () => {
    const { result, requests } = await runWith([{ content: "partial", finish_reason: "insufficient_system_resource" }, { content: "never" }]);
    expect(result.code).toBe(1);
    expect(requests).toBe(1);
    expect(oneLine(result.stderr)).toEqual([expect.stringMatching(/insufficient_system_resource/)]);
  });

  it("gives up after 4 tries with one line naming the failure", async () => {
    const fault = { fault: { kind: "status", status: 503 } };
    const { result, requests } = await runWith([fault, fault, fault, fault, { content: "never" }]);
    expect(result.code).toBe(1);
    expect(requests).toBe(4);
    expect(oneLine(result.stderr)).toEqual([expect.stringMatching(/^hel: DeepSeek's server failed \(503.*after 4 tries — /)]);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "error", answer: null });
  });

  it.each([
    [400, /DeepSeek refused the request \(400/],
    [401, /rejected the API key \(401\) — check DEEPSEEK_API_KEY/],
    [402, /out of balance \(402\) — top up/],
    [422, /DeepSeek refused the request \(422/],
  ])("HTTP %i is not retried and ends with one clear line", async (status, message) => {
    const { result, requests } = await runWith([{ fault: { kind: "status", status } }, { content: "never" }]);
    expect(result.code).toBe(1);
    expect(requests).toBe(1);
    expect(oneLine(result.stderr)).toEqual([expect.stringMatching(message)]);
  });

  it("a context-too-long 400 says what to do", async () => {
    sim = await startSimulator({ contextWindow: 1000 });
    const project = await tempProject();
    const tooLong = await runHelInProcess({ args: ["-C", project, "--max-output-tokens", "2000", "hi"], baseUrl: sim.url });
    expect(tooLong.code).toBe(1);
    expect(sim.requests).toHaveLength(1);
    expect(oneLine(tooLong.stderr)).toEqual([expect.stringMatching(/longer than the model's context window .* — start a new session/)]);
  });

  it("a stream dropped after the answer started is not retried", async () => {
    const { result, requests } = await runWith([{ fault: { kind: "drop", afterChunks: 3 } }, { content: "never" }]);
    expect(result.code).toBe(1);
    expect(requests).toBe(1);
    expect(oneLine(result.stderr)).toEqual([expect.stringMatching(/broke off before it finished/)]);
  });

  it("a stream silent past the idle limit is abandoned; with no answer started, it is retried", async () => {
    const { result, requests } = await runWith([{ fault: { kind: "stall", ms: 3000 } }, { content: "ok" }], [], { HEL_STREAM_IDLE_MS: "300" });
    expect(result.code).toBe(0);
    expect(requests).toBe(2);
    expect(result.stderr).toMatch(/no data from the server, retrying/);
  });

  it("keep-alive comments do not count as silence", async () => {
    const { result, requests } = await runWith([{ faults: [{ kind: "keepalive", count: 6, everyMs: 150 }], reply: { content: "patient" } }], [], { HEL_STREAM_IDLE_MS: "400" });
    expect(result.code).toBe(0);
    expect(requests).toBe(1);
    expect(JSON.parse(result.stdout).answer).toBe("patient");
  });
});

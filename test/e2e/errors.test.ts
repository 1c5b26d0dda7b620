// Bad input and a failing API, end to end: exit codes, the one line a person reads, and which
// failures are retried (counted at the simulator).
import { createServer } from "node:net";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type SimFault, type Simulator } from "../../sim/index.js";
import { collect, runHel, startHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const oneLine = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("hel: "));

describe("usage errors exit 2", () => {
  it("missing DEEPSEEK_API_KEY names the variable and the no-key route (npm run sim)", async () => {
    const result = await runHel({ args: ["hi"], env: { DEEPSEEK_API_KEY: undefined } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("hel: DEEPSEEK_API_KEY is not set — export your DeepSeek API key, or try hel without one: run `npm run sim` in a clone of hel and paste the export line it prints\n");
  });

  it.each([
    [["--frobnicate", "hi"], /unknown option '--frobnicate'/],
    [["--delegate", "some", "hi"], /--delegate.*full, no-tools, task-only/],
    [["--access", "root", "hi"], /--access.*read-only, edit, full/],
    [["--max-steps", "zero", "hi"], /--max-steps takes a whole number/],
    [["--tools", "read_file,rm", "hi"], /--tools takes names from/],
    [["-C", "/nonexistent/dir", "hi"], /does not exist/],
  ])("%j", async (args, message) => {
    const result = await runHel({ args });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^hel: .* — /);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    [["--child-max-steps", "0"], /^hel: --child-max-steps must be at least 1 — see hel --help$/],
    [["--child-max-tokens", "lots"], /^hel: --child-max-tokens takes a whole number — see hel --help$/],
  ])("%j, a child budget flag, is one line", async (args, message) => {
    const result = await runHel({ args: [...args, "hi"] });
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toMatch(message);
  });

  it("--help and --version exit 0", async () => {
    const help = await runHel({ args: ["--help"] });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--delegate <mode>");
    expect(help.stdout).toContain("DEEPSEEK_API_KEY");
    // The commands' arguments, which the top-level help otherwise leaves to each command's own.
    expect(help.stdout.replace(/\s+/g, " ")).toContain("sessions ls [--json], sessions show <id> [--json], sessions rm <ids...>, sessions fork <id> [--at <turn>]");
    const version = await runHel({ args: ["--version"] });
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

async function runWith(steps: { fault: SimFault }[] | object[], extraArgs: string[] = [], env: Record<string, string> = {}) {
  sim = await startSimulator({ script: steps as never });
  const project = await tempProject();
  const result = await runHel({ args: ["-C", project, "--json", ...extraArgs, "hi"], baseUrl: sim.url, env });
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
    const tooLong = await runHel({ args: ["-C", project, "--max-output-tokens", "2000", "hi"], baseUrl: sim.url });
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

  it("an unreachable base URL exits 1 after the retries, naming the URL, and writes no session", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const project = await tempProject();
    const url = `http://127.0.0.1:${port}`;
    const result = await runHel({ args: ["-C", project, "hi"], baseUrl: url });
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toEqual([expect.stringContaining(`cannot reach ${url} after 4 tries`)]);
    expect(result.stderr.match(/retrying in/g)).toHaveLength(3);
    expect(existsSync(join(project, ".hel"))).toBe(false);

    // HEL_DEBUG=1 adds the failure's stack, its cause (the refused connection) included.
    const debug = await runHel({ args: ["-C", project, "hi"], baseUrl: url, env: { HEL_DEBUG: "1" } });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/ModelError: cannot reach .* after 4 tries[^]*\n\s+at [^]*ECONNREFUSED/);
  });
});

describe("interruptions", () => {
  it("SIGINT while the answer streams ends the instruction as aborted, not as an error, and exits 130", async () => {
    const stalled = (sim = await startSimulator({ script: [{ faults: [{ kind: "stall", ms: 20_000 }], reply: { content: "late" } }] }));
    const project = await tempProject();
    const child = startHel({ args: ["-C", project, "--json", "hi"], baseUrl: stalled.url });
    const done = collect(child);
    // The response has begun (200 headers sent, stream open and silent) when the signal comes.
    await waitFor(() => stalled.requests[0]?.status === 200, "the simulator to open the stalled stream");
    child.kill("SIGINT");
    const result = await done;
    expect(result.code).toBe(130);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "aborted", answer: null });
    expect(result.stderr).not.toMatch(/broke off/);
    // Nothing was answered, so there is nothing to resume and no hint.
    expect(result.stderr.endsWith("hel: interrupted — nothing was saved\n")).toBe(true);
    expect(result.stderr).not.toMatch(/resume with/);
  });
});

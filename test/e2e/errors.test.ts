// Bad input, an unreachable server and signals, through the built CLI: the exit codes of the process,
// the one line a person reads, HEL_DEBUG's stack. The API's failures and their retries run in this
// process, in test/cli/errors.test.ts.
import { createServer } from "node:net";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
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

describe("retries", () => {
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

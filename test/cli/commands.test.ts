// run_command end to end, hel run in this process as the command runs it (helpers/conversation.ts)
// against the simulator: the one-shot view and the run's readers, the default tools, and --network.
// What hel's own environment decides (no sandbox program on its PATH), a command that outlives a killed
// hel, and the interactive prompt are test/e2e/commands.test.ts's.
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { lastToolResult, runCommand } from "../helpers/command-steps.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

describe("the one-shot view and the run's readers", () => {
  it("shows the command line, then how it ended; --json and --record carry the call", async () => {
    sim = await startSimulator({ script: [{ content: "Running the build.", ...runCommand({ command: "echo built; exit 3" }) }, { content: "it failed" }] });
    const project = await tempProject();
    const out = join(project, "rec");
    const result = await runHelInProcess({ args: ["-C", project, "--tools", "read_file,run_command", "--json", "--record", out, "build"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const view = result.stderr.split("\n");
    // What the model said before the call, then the command; a failed command's output stays above
    // how it ended, on a pipe too.
    expect(view.slice(0, 4)).toEqual(["Running the build.", "$ echo built; exit 3", "  │ built", expect.stringMatching(/^ {2}✗ exit code 3 · \d+\.\d\d s$/)]);
    expect(JSON.parse(result.stdout)).toMatchObject({ answer: "it failed", exit_reason: "completed" });
    const record = JSON.parse(await readFile(join(out, "record.json"), "utf8"));
    expect(record.tool_calls).toEqual([{ agent: "parent", name: "run_command", arguments: '{"command":"echo built; exit 3"}', is_error: false }]);
    expect(lastToolResult(sim)).toMatch(/^\[#2\] exit code 3 · \d+\.\d\d s; sandbox: .*\nbuilt$/);
  });

  it("offers run_command by default, with the file, search and context tools", async () => {
    sim = await startSimulator({ script: [{ content: "ok" }] });
    const project = await tempProject();
    expect((await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: sim.url })).code).toBe(0);
    expect((sim.requests[0]!.body as ChatRequest).tools!.map((t) => t.function.name)).toEqual(["read_file", "search_replace", "run_command", "grep", "find_files", "fold", "recall", "ask", "todo"]);
  });
});

describe.runIf(process.platform === "linux")("--network", () => {
  let server: Server;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it("lets a sandboxed command reach a server on 127.0.0.1 only with --network", async () => {
    server = createServer((socket) => socket.end("hello\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo no connection`;
    sim = await startSimulator({ script: [runCommand({ command }), { content: "a" }, runCommand({ command }), { content: "b" }] });
    const project = await tempProject();
    await runHelInProcess({ args: ["-C", project, "--tools", "run_command", "try"], baseUrl: sim.url });
    expect(lastToolResult(sim).split("\n").at(-1)).toBe("no connection");
    await runHelInProcess({ args: ["-C", project, "--tools", "run_command", "--network", "try"], baseUrl: sim.url });
    expect(lastToolResult(sim)).toMatch(/^\[#2\] exit code 0 · \d+\.\d\d s\nhello$/);
  });
});

// Background jobs through the built CLI, as its own process: what the model is sent for each of the
// three calls, the events --json-events writes, jobs ending with hel however it ends (exit, Ctrl-C,
// SIGTERM, SIGKILL), processes moved to sessions of their own included, and a resumed session saying
// which jobs ended with the last run.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHel, startHel } from "../helpers/hel.js";
import { running } from "../helpers/processes.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const call = (name: string, args: object) => ({ tool_calls: [{ name, arguments: JSON.stringify(args) }] });
const TOOLS = ["--tools", "run_command,job_output,job_kill"];
const bodies = () => sim.requests.map((r) => r.body as ChatRequest);
const toolResults = (body: ChatRequest) => body.messages.filter((m) => m.role === "tool").map((m) => m.content as string);

// The sandbox's loopback is the session's own: a fixed port is free.
const SERVER = `node -e 'require("http").createServer((q, r) => r.end("hello from job\\n")).listen(38401, "127.0.0.1", () => console.log("listening"))' # e2e-server-3401`;

describe("the model's view of background jobs", () => {
  it("offers the two tools and background, and sends each call's result", async () => {
    sim = await startSimulator({ script: [call("run_command", { command: SERVER, background: true }), { content: "started" }] });
    const project = await tempProject();
    const first = await runHel({ args: ["-C", project, ...TOOLS, "--json-events", "start the server"], baseUrl: sim.url });
    expect(first.code).toBe(0);
    const tools = bodies()[0]!.tools!;
    expect(tools.map((t) => t.function.name)).toEqual(["run_command", "job_output", "job_kill"]);
    expect(tools[0]!.function.parameters).toMatchObject({ properties: { background: { type: "boolean" } } });
    expect(tools.slice(1)).toEqual([
      {
        type: "function",
        function: {
          name: "job_output",
          description: "A background job's new output; its exit code once ended.",
          parameters: { type: "object", properties: { job: { type: "integer" }, wait_s: { type: "number" } }, required: ["job"] },
        },
      },
      {
        type: "function",
        function: {
          name: "job_kill",
          description: "End a background job.",
          parameters: { type: "object", properties: { job: { type: "integer" } }, required: ["job"] },
        },
      },
    ]);
    expect(toolResults(bodies().at(-1)!)[0]).toMatch(/^\[#2\] job 1 running · \d+\.\d s\nlistening$/);
    const events = first.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { type: string })
      .filter((event) => event.type.startsWith("job_"));
    // hel's exit ended the job: it has no job_end.
    expect(events).toEqual([{ type: "job_start", agent: "parent", job: 1, command: SERVER }]);
    expect(running("e2e-server-3401")).toEqual([]);
  });

  it("a foreground command reaches a server a job started, job_output shows what is new, job_kill ends it", async () => {
    // Until the server listens (its start may take more than the first second), connecting is refused.
    const fetch = `node -e 'const get = () => fetch("http://127.0.0.1:38401/").then(r => r.text()).then(t => process.stdout.write(t), () => setTimeout(get, 50)); get()'`;
    sim = await startSimulator({
      script: [
        call("run_command", { command: SERVER, background: true }),
        call("run_command", { command: fetch }),
        call("job_output", { job: 1 }),
        call("job_kill", { job: 1 }),
        call("job_output", { job: 2 }),
        { content: "done" },
      ],
    });
    const project = await tempProject();
    const run = await runHel({ args: ["-C", project, ...TOOLS, "--json-events", "serve and fetch"], baseUrl: sim.url });
    expect(run.code).toBe(0);
    const results = toolResults(bodies().at(-1)!);
    // "listening" comes once: in the first second, or in the next look.
    expect(results[0]).toMatch(/^\[#2\] job 1 running · \d+\.\d s\n(listening|\(no output\))$/);
    expect(results[1]).toMatch(/^\[#3\] exit code 0 · \d+\.\d\d s\nhello from job$/);
    expect(results[2]).toMatch(/^\[#4\] job 1 running · \d+\.\d s\n(listening|\(no output\))$/);
    expect(`${results[0]}\n${results[2]}`.match(/listening/g)).toHaveLength(1);
    expect(results[3]).toMatch(/^\[#5\] job 1 ended by job_kill · \d+\.\d s\n\(no output\)$/);
    expect(results[4]).toBe("[#6] Error: there is no job 2 (jobs: 1): jobs end with hel, and ids count from 1 in each run; start it again with run_command {background: true}");
    expect(running("e2e-server-3401")).toEqual([]);
    const events = run.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { type: string })
      .filter((event) => event.type.startsWith("job_"));
    const command = SERVER;
    expect(events).toEqual([
      { type: "job_start", agent: "parent", job: 1, command },
      { type: "job_end", agent: "parent", job: 1, command, exit_code: null, signal: null, killed: true },
    ]);
  });
});

describe("jobs end with hel", () => {
  const SLEEPERS = "setsid sleep 3402 & setsid sh -c 'sleep 3402' & touch started; wait";
  const ways = [
    { access: "edit", signal: "SIGKILL" },
    { access: "full", signal: "SIGKILL" },
    { access: "edit", signal: "SIGTERM" },
    { access: "edit", signal: "SIGINT" },
  ] as const;
  for (const { access, signal } of ways) {
    it(`leaves no process of a job when hel gets ${signal} (${access})`, async () => {
      sim = await startSimulator({ script: [call("run_command", { command: SLEEPERS, background: true }), { fault: { kind: "stall", ms: 120_000 } }] });
      const project = await tempProject();
      const hel = startHel({ args: ["-C", project, ...TOOLS, "--access", access, "wait"], baseUrl: sim.url });
      await waitFor(() => existsSync(join(project, "started")) && sim.requests.length === 2, "the job to start and hel to wait on the model");
      expect(running("sleep 3402").length).toBeGreaterThanOrEqual(2);
      hel.kill(signal);
      await new Promise((resolve) => hel.on("close", resolve));
      await waitFor(() => running("sleep 3402").length === 0, "the job's processes to end");
    });
  }

  it("a resumed session says which jobs were running when its last run ended, and where their output is", async () => {
    sim = await startSimulator({ script: [call("run_command", { command: "echo up; sleep 3403", background: true }), { content: "started" }, { content: "ok" }] });
    const project = await tempProject();
    const first = await runHel({ args: ["-C", project, ...TOOLS, "start it"], baseUrl: sim.url });
    expect(first.code).toBe(0);
    const id = /resume with: hel --resume (\S+)/.exec(first.stderr)![1]!;
    await waitFor(() => running("sleep 3403").length === 0, "the job to end with hel");
    const again = await runHel({ args: ["-C", project, ...TOOLS, "--resume", id, "is it up?"], baseUrl: sim.url });
    expect(again.code).toBe(0);
    const log = /output in (\.hel\/sessions\/[^)]+)\)/.exec(again.stderr)?.[1];
    expect(log).toBeDefined();
    expect(again.stderr).toContain(`hel: background jobs running when session ${id} was saved ended with its hel: job 1 (echo up; sleep 3403, output in ${log})\n`);
    const last = bodies().at(-1)!.messages.at(-1)!;
    expect(last).toEqual({ role: "user", content: `[#3] [hel: the background jobs of the last run ended with it: job 1 (echo up; sleep 3403, output in ${log}). Start again what is still needed]\n\nis it up?` });
    expect(existsSync(join(project, log!))).toBe(true);
    // Said once: a later resume says nothing of them.
    const third = await runHel({ args: ["-C", project, ...TOOLS, "--resume", id, "and now?"], baseUrl: sim.url });
    expect(third.stderr).not.toContain("background jobs");
  });
});

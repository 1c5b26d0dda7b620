// Background jobs with real processes, in the sandbox (edit access) and under full access: a server a
// job starts on the loopback is reached by a later foreground command, job_output gives what is new and
// then how the job ended, job_kill ends every process the job started (setsid ones too), a ninth job
// is refused, a subagent starts none, an escalation the user refuses starts none, and a long output
// is bounded and spilled.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jobKillTool, jobOutputTool } from "../../../src/tools/command/job-tools.js";
import { BackgroundJobs, withJobs, type JobEvent } from "../../../src/tools/command/jobs.js";
import { escalatingRunCommandTool, runCommandTool, type RunCommandArgs } from "../../../src/tools/command/run-command.js";
import type { Access, CommandApprovals, ToolContext } from "../../../src/tools/types.js";
import { running } from "../../helpers/processes.js";
import { toolProject } from "../../helpers/tools.js";

const opened: BackgroundJobs[] = [];
afterEach(async () => {
  for (const jobs of opened.splice(0)) await jobs.endAll();
});

async function project(access: Access) {
  const p = await toolProject(access);
  const events: JobEvent[] = [];
  const jobs = new BackgroundJobs((event) => events.push(event));
  opened.push(jobs);
  const ctx: ToolContext = { ...p.ctx, session: withJobs({ ...p.ctx.session }, jobs) };
  return { ...p, ctx, jobs, events };
}

const run = (ctx: ToolContext, args: RunCommandArgs) => runCommandTool.run(args, ctx);
const output = (ctx: ToolContext, job: number, wait_s?: number) => jobOutputTool.run({ job, ...(wait_s === undefined ? {} : { wait_s }) }, ctx);

/** job_output until the job has ended: all it gave, in order. */
async function untilEnded(ctx: ToolContext, job: number): Promise<string> {
  let all = "";
  for (;;) {
    const look = await output(ctx, job, 30);
    all += `${look}\n`;
    if (!look.startsWith(`job ${job} running`)) return all;
  }
}

const SERVER = `node -e 'const s = require("http").createServer((q, r) => r.end("hello from job\\n")); s.listen(0, "127.0.0.1", () => console.log("port " + s.address().port))' # job-server-3201`;

describe("background jobs", () => {
  for (const access of ["edit", "full"] as const) {
    it(`a server a job started on the loopback is reached by a later command, and job_kill ends it (${access})`, async () => {
      const { ctx, events } = await project(access);
      const started = await run(ctx, { command: SERVER, background: true });
      const port = /port (\d+)/.exec(started)?.[1];
      expect(started.split("\n")[0]).toMatch(/^job 1 running · \d+\.\d s$/);
      expect(port).toBeDefined();
      const fetched = await run(ctx, { command: `node -e 'fetch("http://127.0.0.1:${port}/").then(r => r.text()).then(t => process.stdout.write(t))'` });
      expect(fetched.split("\n").slice(1)).toEqual(["hello from job"]);
      expect(running("job-server-3201")).not.toEqual([]);
      const killed = await jobKillTool.run({ job: 1 }, ctx);
      expect(killed.split("\n")[0]).toMatch(/^job 1 ended by job_kill · /);
      expect(running("job-server-3201")).toEqual([]);
      expect(events).toEqual([
        { type: "job_start", job: 1, command: SERVER },
        { type: "job_end", job: 1, command: SERVER, exitCode: null, signal: null, killed: true },
      ]);
    });
  }

  it("a sandboxed command still has no network beyond the loopback, and its own loopback before any job", async () => {
    const { ctx } = await project("edit");
    const reach = `node -e 'require("net").connect(80, "1.1.1.1").on("connect", () => console.log("reached")).on("error", (e) => console.log("refused", e.code))'`;
    expect((await run(ctx, { command: reach })).split("\n")[1]).toMatch(/^refused /);
    await run(ctx, { command: "sleep 3202", background: true });
    expect((await run(ctx, { command: reach })).split("\n")[1]).toMatch(/^refused /);
  });

  it("job_output gives the new output since the last look, then how the job ended; the whole log stays in spill/", async () => {
    const { ctx, dir, events } = await project("edit");
    const started = await run(ctx, { command: "echo first; until [ -f go ]; do sleep 0.02; done; echo second; exit 3", background: true });
    expect(started.split("\n").slice(1)).toEqual(["first"]);
    expect((await output(ctx, 1)).split("\n").slice(1)).toEqual(["(no output)"]);
    await writeFile(path.join(dir, "go"), "");
    const rest = await untilEnded(ctx, 1);
    expect(rest).toContain("second");
    expect(rest).not.toContain("first");
    expect(rest).toMatch(/job 1 exit code 3 · /);
    expect(events.at(-1)).toEqual({ type: "job_end", job: 1, command: expect.any(String), exitCode: 3, signal: null, killed: false });
    const record = JSON.parse(await readFile(path.join(ctx.session.dir, "jobs.json"), "utf8")) as { jobs: { log: string; running: boolean }[] };
    expect(record.jobs[0]!.running).toBe(false);
    expect(await readFile(path.join(dir, record.jobs[0]!.log), "utf8")).toBe("first\nsecond\n");
  });

  it("bounds a long output as a command's, the whole of it in a spill file", async () => {
    const { ctx, dir } = await project("edit");
    const all = `${await run(ctx, { command: "seq 1 20000", background: true })}\n${await untilEnded(ctx, 1)}`;
    const spill = /is in (\S+); read the left-out part/.exec(all)?.[1];
    expect(spill).toBeDefined();
    expect(all).toContain("20000");
    expect(all).toMatch(/job 1 exit code 0/);
    expect(Buffer.byteLength(all)).toBeLessThan(8 * 1024);
    expect((await readFile(path.join(dir, spill!), "utf8")).split("\n").length).toBeGreaterThan(19_000);
  });

  it("job_kill ends processes the job moved to sessions of their own (setsid)", async () => {
    for (const access of ["edit", "full"] as const) {
      const { ctx } = await project(access);
      await run(ctx, { command: "setsid sleep 3203 & setsid sh -c 'sleep 3203' & echo up; wait", background: true });
      expect(running("sleep 3203").length).toBeGreaterThan(0);
      await jobKillTool.run({ job: 1 }, ctx);
      expect(running("sleep 3203")).toEqual([]);
    }
  });

  it("refuses a ninth job, naming job_kill, and runs one again once one ended", async () => {
    const { ctx } = await project("edit");
    await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => run(ctx, { command: `sleep 3204 # ${i}`, background: true })));
    await expect(run(ctx, { command: "sleep 3204 # 9", background: true })).rejects.toThrow(/8 background jobs run already \(1, 2, 3, 4, 5, 6, 7, 8\): end one with job_kill/);
    await jobKillTool.run({ job: 3 }, ctx);
    expect((await run(ctx, { command: "sleep 3204 # 9", background: true })).split("\n")[0]).toMatch(/^job 9 running/);
  });

  it("a subagent cannot start a job, nor look at one", async () => {
    const { ctx } = await project("edit");
    const child: ToolContext = { ...ctx, caller: { ...ctx.caller, label: "delegate" } };
    await expect(run(child, { command: "sleep 3205", background: true })).rejects.toThrow(/a subagent cannot start background commands/);
    await expect(output(child, 1)).rejects.toThrow(/no background jobs here/);
    expect(running("sleep 3205")).toEqual([]);
  });

  it("a background command is escalated as a foreground one: refused by the user, it does not start", async () => {
    const { ctx, jobs } = await project("edit");
    const grant = { network: true, writable: [] };
    let asked: unknown = null;
    const approvals: CommandApprovals = {
      mode: "on-request",
      allowed: () => null,
      denied: () => undefined,
      deniedFor: () => grant,
      decide: async (request) => {
        asked = request;
        return "no";
      },
    };
    const escalating = { ...ctx, policy: { ...ctx.policy, approvals } };
    await expect(escalatingRunCommandTool.run({ command: "sleep 3206", background: true, escalate: true, justification: "it serves" }, escalating)).rejects.toThrow(/the user refused to give this command the network/);
    expect(asked).toEqual({ command: "sleep 3206", justification: "it serves", agent: null, grant });
    expect(jobs.list()).toEqual([]);
    expect(running("sleep 3206")).toEqual([]);
  });

  it("puts back what a running job did to git's hooks at each look, not only at its end", async () => {
    const { ctx, dir } = await project("edit");
    const hook = path.join(dir, "sub", ".git", "hooks", "pre-commit");
    const started = await run(ctx, { command: `git init -q sub && printf '#!/bin/sh\\n' > sub/.git/hooks/pre-commit && echo made; sleep 3207`, background: true });
    expect(started).toMatch(/^job 1 running · \d+\.\d s\nGit settings and hooks are the user's, so what the command changed there was put back: .*sub\/\.git\/hooks\/pre-commit/);
    expect(existsSync(hook)).toBe(false);
    expect(running("sleep 3207")).not.toEqual([]);
  });

  it("an unknown job is an error that says jobs end with hel", async () => {
    const { ctx } = await project("edit");
    await expect(output(ctx, 4)).rejects.toThrow(/there is no job 4: jobs end with hel/);
    expect(existsSync(path.join(ctx.session.dir, "jobs.json"))).toBe(false);
  });
});

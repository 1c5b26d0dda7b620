// Escalation and allow rules through run_command, with real commands in the real sandbox: what runs
// outside it and why, what the user is asked (the AskApproval a front end gives), what "always"
// remembers, what a refusal and --approval never tell the model, and that a command let out still
// loses the API key and the credential variables from its environment.
import { existsSync, readlinkSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalAnswer, ApprovalRequest } from "../../../src/tools/command/approval.js";
import { createApprovals } from "../../../src/tools/command/approvals.js";
import { escalatingRunCommandTool, runCommandTool } from "../../../src/tools/command/run-command.js";
import { executeToolCall } from "../../../src/tools/registry.js";
import type { ApprovalMode, ToolContext, ToolDetails } from "../../../src/tools/types.js";
import { toolProject } from "../../helpers/tools.js";

const KEY = "sk-test-key-approvals-51c2";

/** A project under edit access whose user answers each question with the next of `answers`. */
async function project(options: { mode?: ApprovalMode; allow?: string[]; answers?: ApprovalAnswer[] } = {}) {
  const p = await toolProject("edit");
  // Outside the project and outside /tmp, which the sandbox replaces with a private one.
  const outside = await mkdtemp("/var/tmp/hel-approvals-");
  made.push(outside);
  const asked: ApprovalRequest[] = [];
  const answers = [...(options.answers ?? [])];
  p.ctx.secrets = [KEY];
  p.ctx.approvals = createApprovals({
    mode: options.mode ?? "on-request",
    allow: options.allow ?? [],
    ask: async (request) => {
      asked.push(request);
      return answers.shift() ?? "no";
    },
  });
  return { ...p, outside, asked };
}

/** The call as the model makes it, through the registry: its result, and the details told beside it. */
async function call(ctx: ToolContext, args: Record<string, unknown>, tool = escalatingRunCommandTool) {
  const result = await executeToolCall({ id: "c1", type: "function", function: { name: "run_command", arguments: JSON.stringify(args) } }, [tool], ctx);
  return { ...result, details: result.details as ToolDetails | undefined };
}

const made: string[] = [];
const savedEnv = { ...process.env };
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
});

describe("escalation", () => {
  it("asks with the command and the reason; once runs it outside the sandbox, in its own PID namespace", async () => {
    const { ctx, outside, asked } = await project({ answers: ["once"] });
    const write = `echo made > ${path.join(outside, "made.txt")} && readlink /proc/self/ns/pid`;
    const sandboxed = await call(ctx, { command: write });
    expect(sandboxed.content).toContain("Read-only file system");
    expect(sandboxed.content.split("\n")[1]).toMatch(/^The sandbox lets a command write only in the project and \/tmp, .* escalate: true and a justification/);
    expect(asked).toEqual([]);

    const escalated = await call(ctx, { command: write, escalate: true, justification: "it writes the release notes beside the project" });
    expect(asked).toEqual([{ command: write, justification: "it writes the release notes beside the project", agent: null }]);
    expect(existsSync(path.join(outside, "made.txt"))).toBe(true);
    const lines = escalated.content.split("\n");
    expect(lines[0]).toMatch(/^exit code 0 · /);
    expect(lines[1]).toBe("It ran outside the sandbox: approved once by the user.");
    expect(lines[2]).toMatch(/^pid:\[\d+\]$/);
    expect(lines[2]).not.toBe(readlinkSync("/proc/self/ns/pid"));
    expect(escalated.details).toMatchObject({ kind: "command", exitCode: 0, outside: { by: "once", justification: "it writes the release notes beside the project" } });

    // Once is once: the same command asks again.
    await call(ctx, { command: write, escalate: true, justification: "again" });
    expect(asked).toHaveLength(2);
  });

  it("takes the key and every credential variable from a command let out, as from a sandboxed one", async () => {
    Object.assign(process.env, { DEEPSEEK_API_KEY: KEY, GITHUB_TOKEN: "ghp_x", PGPASSWORD: "pw", DATABASE_URL: "postgres://u:secret@db/x", HEL_PLAIN: "kept" });
    const { ctx } = await project({ answers: ["once"] });
    const { content } = await call(ctx, { command: "env | cut -d= -f1 | sort", escalate: true, justification: "needs the network" });
    const names = content.split("\n").slice(2);
    expect(names).toContain("HEL_PLAIN");
    for (const name of ["DEEPSEEK_API_KEY", "GITHUB_TOKEN", "PGPASSWORD", "DATABASE_URL"]) expect(names).not.toContain(name);
  });

  it("remembers always for the exact command, for the conversation's approvals", async () => {
    const { ctx, asked } = await project({ answers: ["always"] });
    const first = await call(ctx, { command: "true hel-approval-probe", escalate: true, justification: "probe" });
    expect(first.details).toMatchObject({ outside: { by: "always" } });
    const second = await call(ctx, { command: "true hel-approval-probe", escalate: true, justification: "probe again" });
    expect(second.content.split("\n")[1]).toBe("It ran outside the sandbox: approved earlier in this session.");
    expect(second.details).toMatchObject({ outside: { by: "remembered", justification: "probe again" } });
    expect(asked).toHaveLength(1);
    // Not another command, however alike.
    await call(ctx, { command: "true hel-approval-probe ", escalate: true, justification: "probe" });
    expect(asked).toHaveLength(2);
  });

  it("does not run a refused command, and tells the model not to ask again", async () => {
    const { ctx, outside } = await project({ answers: ["no"] });
    const target = path.join(outside, "refused.txt");
    const refused = await call(ctx, { command: `touch ${target}`, escalate: true, justification: "wants it" });
    expect(refused.isError).toBe(true);
    expect(refused.content).toBe(
      "Error: the user refused to run this command outside the sandbox, so it was not run. Do not ask again for it: do the task within the sandbox, or say in your answer what the user must run themselves",
    );
    expect(refused.details).toEqual({ kind: "refusal", justification: "wants it" });
    expect(existsSync(target)).toBe(false);
  });

  it("needs a justification", async () => {
    const { ctx, asked } = await project();
    const { content } = await call(ctx, { command: "true", escalate: true, justification: "  " });
    expect(content).toMatch(/^Error: invalid arguments for run_command:\n- justification: escalate needs a justification/);
    expect(asked).toEqual([]);
  });

  it("under --approval never, is not offered and says it is off", async () => {
    const { ctx, asked } = await project({ mode: "never" });
    const { content, isError } = await call(ctx, { command: "true", escalate: true, justification: "x" }, runCommandTool);
    expect(isError).toBe(true);
    expect(content).toContain("- arguments: escalation is off in this run (--approval never), so a command cannot run outside the sandbox");
    expect(asked).toEqual([]);
  });

  it("is refused to an agent with read-only access, and names the child that asks", async () => {
    const { ctx, asked } = await project({ answers: ["once"] });
    const readOnly = await call({ ...ctx, access: "read-only" }, { command: "true", escalate: true, justification: "x" });
    expect(readOnly.content).toBe("Error: escalation is not available to an agent with read-only access: this agent only reads, so do without the command");
    await call({ ...ctx, agentLabel: "subagent 2 (task-only)" }, { command: "true", escalate: true, justification: "x" });
    expect(asked.map((a) => a.agent)).toEqual(["subagent 2 (task-only)"]);
  });
});

describe("allow rules", () => {
  it("run a matching command outside the sandbox unasked, escalated or not", async () => {
    const { ctx, outside, asked } = await project({ mode: "never", allow: ["touch"] });
    const target = path.join(outside, "allowed.txt");
    const ran = await call(ctx, { command: `touch ${target}` }, runCommandTool);
    expect(existsSync(target)).toBe(true);
    expect(ran.content.split("\n")[1]).toBe('It ran outside the sandbox: allowed by the rule "touch".');
    expect(ran.details).toMatchObject({ exitCode: 0, outside: { by: "rule", rules: ["touch"] } });
    expect(asked).toEqual([]);
  });

  it("leave a line with an unmatched part, or a redirection out of the project, in the sandbox", async () => {
    const { ctx, dir, outside } = await project({ allow: ["touch", "echo"] });
    for (const command of [`touch ${outside}/a; rm -f ${outside}/a; cat /dev/null`, `echo $(touch ${outside}/b)`, `echo x > ${outside}/c`, `echo x > .git/c`]) {
      const ran = await call(ctx, { command });
      expect(ran.details).toMatchObject({ kind: "command" });
      expect(ran.details).not.toHaveProperty("outside");
    }
    for (const name of ["a", "b", "c"]) expect(existsSync(path.join(outside, name))).toBe(false);
    // A redirection into the project is the project's own.
    await writeFile(path.join(dir, "keep.txt"), "");
    const inside = await call(ctx, { command: "echo x > keep.txt" });
    expect(inside.details).toMatchObject({ outside: { by: "rule", rules: ["echo"] } });
  });

  it("do nothing under read-only access", async () => {
    const { ctx, outside } = await project({ allow: ["touch"] });
    const ran = await call({ ...ctx, access: "read-only" }, { command: `touch ${outside}/r` });
    expect(ran.content).toContain("Read-only file system");
    expect(existsSync(path.join(outside, "r"))).toBe(false);
  });
});

describe("questions at the same time", () => {
  it("are asked one after the other, and one waiting behind an always for its command is not asked", async () => {
    let release: (answer: ApprovalAnswer) => void = () => undefined;
    const asked: string[] = [];
    const approvals = createApprovals({
      mode: "on-request",
      allow: [],
      ask: (request) => {
        asked.push(request.command);
        return new Promise((resolve) => (release = resolve));
      },
    });
    const signal = new AbortController().signal;
    const first = approvals.decide({ command: "npm install", justification: "a", agent: "subagent 1 (full)" }, signal);
    const second = approvals.decide({ command: "npm install", justification: "b", agent: "subagent 2 (full)" }, signal);
    const third = approvals.decide({ command: "git push", justification: "c", agent: null }, signal);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual(["npm install"]);
    release("always");
    expect(await first).toBe("always");
    expect(await second).toBe("remembered");
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual(["npm install", "git push"]);
    release("no");
    expect(await third).toBe("no");
  });
});

// Escalation and allow rules through run_command, with real commands in the real sandbox: what a
// command is given (what the sandbox denied it: the network, writes to named places; never a run
// without the sandbox) and why, what the user is asked (the AskApproval a front end gives), what
// "always" remembers, what a refusal and --approval never tell the model, that a command given more
// still loses the API key and the credential variables from its environment, and that it finds its
// program only through PATH entries outside the project.
import { existsSync, readlinkSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalAnswer, ApprovalRequest } from "../../../src/tools/command/ask-approval.js";
import { createApprovals } from "../../../src/tools/command/approvals.js";
import { escalatingRunCommandTool, runCommandTool } from "../../../src/tools/command/run-command.js";
import { executeToolCall } from "../../../src/tools/registry.js";
import type { ApprovalMode, ToolContext, ToolDetails } from "../../../src/tools/types.js";
import { toolProject, withPolicy } from "../../helpers/tools.js";

const KEY = "sk-test-key-approvals-51c2";

/** A project under edit access whose user answers each question with the next of `answers`. */
async function project(options: { mode?: ApprovalMode; allow?: string[]; answers?: ApprovalAnswer[] } = {}) {
  const p = await toolProject("edit");
  // Outside the project and outside /tmp, which the sandbox replaces with a private one.
  const outside = await mkdtemp("/var/tmp/hel-approvals-");
  made.push(outside);
  const asked: ApprovalRequest[] = [];
  const answers = [...(options.answers ?? [])];
  p.ctx.policy.secrets = [KEY];
  p.ctx.policy.approvals = createApprovals({
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

/** Whether the command's network namespace has more than `lo` (the sandbox's has not), as a shell test. */
const HAS_NETWORK = `awk 'NR > 2 && $1 != "lo:"' /proc/net/dev | grep -q .`;
/** A command that fails as a sandboxed one does without the network, and says how it ran. */
const NEEDS_NETWORK = `if ${HAS_NETWORK}; then echo network; else echo 'curl: (6) Could not resolve host: example.com'; exit 1; fi`;

describe("escalation", () => {
  it("asks with the command, the reason and what the sandbox denied it; once gives that, in the sandbox still, in its own PID namespace", async () => {
    const { ctx, dir, outside, asked } = await project({ answers: ["once", "once"] });
    await mkdir(path.join(dir, ".hel"), { recursive: true });
    await mkdir(path.join(dir, ".git", "hooks"), { recursive: true });
    const other = await mkdtemp("/var/tmp/hel-approvals-other-");
    made.push(other);
    const write = `echo made > ${path.join(outside, "made.txt")} && readlink /proc/self/ns/pid`;
    const sandboxed = await call(ctx, { command: write });
    expect(sandboxed.content).toContain("Read-only file system");
    expect(sandboxed.content.split("\n")[1]).toBe(
      `The sandbox lets a command write only in the project and /tmp, which is likely why it failed. If the task needs it, call run_command again with the same command, escalate: true and a justification: the user is asked whether to give it writes to ${outside} (in the sandbox still).`,
    );
    expect(asked).toEqual([]);

    const escalated = await call(ctx, { command: write, escalate: true, justification: "it writes the release notes beside the project" });
    expect(asked).toEqual([{ command: write, justification: "it writes the release notes beside the project", agent: null, grant: { network: false, writable: [outside] } }]);
    expect(existsSync(path.join(outside, "made.txt"))).toBe(true);
    const lines = escalated.content.split("\n");
    expect(lines[0]).toMatch(/^exit code 0 · /);
    expect(lines[1]).toBe(`It ran in the sandbox, given writes to ${outside}: approved once by the user.`);
    expect(lines[2]).toMatch(/^pid:\[\d+\]$/);
    expect(lines[2]).not.toBe(readlinkSync("/proc/self/ns/pid"));
    expect(escalated.details).toMatchObject({ kind: "command", exitCode: 0, outside: { by: "once", justification: "it writes the release notes beside the project" } });

    // What it was given is all it was given: hel's and git's places, anywhere else, and the network stay shut.
    const rest = `for f in .hel/config.json .git/hooks/pre-commit ${path.join(other, "x")}; do (echo x > $f) 2>/dev/null && echo "$f written" || echo "$f refused"; done; if ${HAS_NETWORK}; then echo network; else echo no network; fi; echo x > ${path.join(outside, "again.txt")}`;
    await call(ctx, { command: rest });
    const wider = await call(ctx, { command: rest, escalate: true, justification: "again" });
    expect(wider.content.split("\n").slice(2)).toEqual([".hel/config.json refused", ".git/hooks/pre-commit refused", `${path.join(other, "x")} refused`, "no network"]);
    for (const f of [path.join(dir, ".hel", "config.json"), path.join(dir, ".git", "hooks", "pre-commit"), path.join(other, "x")]) expect(existsSync(f)).toBe(false);
    expect(existsSync(path.join(outside, "again.txt"))).toBe(true);
    // Once is once.
    expect(asked).toHaveLength(2);
  });

  it("gives the network for a command that failed for want of it, and nothing more", async () => {
    const { ctx, outside, asked } = await project({ answers: ["once"] });
    const command = `${NEEDS_NETWORK} && touch ${path.join(outside, "net")}`;
    const first = await call(ctx, { command });
    expect(first.content.split("\n")[1]).toContain("the user is asked whether to give it the network (in the sandbox still)");
    const escalated = await call(ctx, { command, escalate: true, justification: "it downloads" });
    expect(asked.map((a) => a.grant)).toEqual([{ network: true, writable: [] }]);
    expect(escalated.content.split("\n")[1]).toBe("It ran in the sandbox, given the network: approved once by the user.");
    expect(escalated.content).toMatch(/^network$/m);
    expect(escalated.content).toContain("Read-only file system");
    expect(existsSync(path.join(outside, "net"))).toBe(false);
  });

  it("is refused, unasked, for a command the sandbox has not stopped", async () => {
    const { ctx, outside, asked } = await project({ answers: ["once"] });
    const target = path.join(outside, "unasked");
    const { content, isError } = await call(ctx, { command: `touch ${target}`, escalate: true, justification: "wants it" });
    expect(isError).toBe(true);
    expect(content).toBe(
      "Error: escalation gives a command only what the sandbox denied that same command line, and nothing has stopped it in the sandbox yet: run it without escalate first; if the sandbox stops it, its result says so",
    );
    expect(asked).toEqual([]);
    expect(existsSync(target)).toBe(false);
  });

  it("takes the key and every credential variable from a command given more, as from a sandboxed one", async () => {
    Object.assign(process.env, { DEEPSEEK_API_KEY: KEY, GITHUB_TOKEN: "ghp_x", PGPASSWORD: "pw", DATABASE_URL: "postgres://u:secret@db/x", HEL_PLAIN: "kept" });
    const { ctx } = await project({ answers: ["once"] });
    const command = `env | cut -d= -f1 | sort; ${NEEDS_NETWORK}`;
    await call(ctx, { command });
    const names = (await call(ctx, { command, escalate: true, justification: "needs the network" })).content.split("\n");
    expect(names.at(-1)).toBe("network");
    expect(names).toContain("HEL_PLAIN");
    for (const name of ["DEEPSEEK_API_KEY", "GITHUB_TOKEN", "PGPASSWORD", "DATABASE_URL"]) expect(names).not.toContain(name);
  });

  it("remembers always for the exact command and what it was given", async () => {
    const { ctx, asked } = await project({ answers: ["always"] });
    const command = `${NEEDS_NETWORK} # probe`;
    await call(ctx, { command });
    const first = await call(ctx, { command, escalate: true, justification: "probe" });
    expect(first.details).toMatchObject({ outside: { by: "always" } });
    const second = await call(ctx, { command, escalate: true, justification: "probe again" });
    expect(second.content.split("\n")[1]).toBe("It ran in the sandbox, given the network: approved earlier in this session.");
    expect(second.details).toMatchObject({ outside: { by: "remembered", justification: "probe again" } });
    expect(asked).toHaveLength(1);
    // Not another command, however alike.
    await call(ctx, { command: `${command} `, escalate: true, justification: "probe" });
    await call(ctx, { command: `${command} ` });
    await call(ctx, { command: `${command} `, escalate: true, justification: "probe" });
    expect(asked).toHaveLength(2);
  });

  it("does not run a refused command, and tells the model not to ask again", async () => {
    const { ctx, outside } = await project({ answers: ["no"] });
    const target = path.join(outside, "refused.txt");
    await call(ctx, { command: `touch ${target}` });
    const refused = await call(ctx, { command: `touch ${target}`, escalate: true, justification: "wants it" });
    expect(refused.isError).toBe(true);
    expect(refused.content).toBe(
      `Error: the user refused to give this command writes to ${outside}, so it was not run. Do not ask again for it: do the task within the sandbox, or say in your answer what the user must run themselves`,
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
    const readOnly = await call(withPolicy(ctx, { access: "read-only" }), { command: "true", escalate: true, justification: "x" });
    expect(readOnly.content).toBe("Error: escalation is not available to an agent with read-only access: this agent only reads, so do without the command");
    await call(ctx, { command: NEEDS_NETWORK });
    await call({ ...ctx, caller: { ...ctx.caller, label: "subagent 2 (task-only)" } }, { command: NEEDS_NETWORK, escalate: true, justification: "x" });
    expect(asked.map((a) => a.agent)).toEqual(["subagent 2 (task-only)"]);
  });
});

describe("allow rules", () => {
  it("give a matching command the network unasked, and nothing else: a prepack a sandboxed command wrote reaches neither .hel, git's hooks nor anything outside", async () => {
    const { ctx, dir, outside, asked } = await project({ mode: "never", allow: ["npm publish --dry-run"] });
    await mkdir(path.join(dir, ".hel"), { recursive: true });
    await mkdir(path.join(dir, ".git", "hooks"), { recursive: true });
    // An earlier sandboxed command (a prompt-injected model, a postinstall) plants the script.
    const attempts = [".hel/config.json", ".git/hooks/pre-commit", path.join(outside, "planted")].map((f) => `(echo x > ${f}) 2>/dev/null && echo ${f} written || echo ${f} refused`).join("; ");
    const script = `${attempts}; if ${HAS_NETWORK}; then echo network; else echo no network; fi`;
    const packageJson = JSON.stringify({ name: "p", version: "1.0.0", scripts: { prepack: script } });
    const plant = `echo ${Buffer.from(packageJson).toString("base64")} | base64 -d > package.json`;
    expect((await call(ctx, { command: plant }, runCommandTool)).details).toMatchObject({ exitCode: 0 });
    const ran = await call(ctx, { command: "npm publish --dry-run" }, runCommandTool);
    expect(ran.content.split("\n")[1]).toBe('It ran in the sandbox, given the network: allowed by the rule "npm publish --dry-run".');
    expect(ran.content).toContain(".hel/config.json refused");
    expect(ran.content).toContain(".git/hooks/pre-commit refused");
    expect(ran.content).toContain(`${path.join(outside, "planted")} refused`);
    expect(ran.content).toMatch(/^network$/m);
    expect(ran.details).toMatchObject({ outside: { by: "rule", rules: ["npm publish --dry-run"] } });
    for (const f of [path.join(dir, ".hel", "config.json"), path.join(dir, ".git", "hooks", "pre-commit"), path.join(outside, "planted")]) expect(existsSync(f)).toBe(false);
    expect(asked).toEqual([]);
  });

  it("never run a program the project planted on a relative or project PATH entry; a plain sandboxed command may use the project's absolute ones", async () => {
    const { ctx, dir } = await project({ allow: ["npm --version"] });
    for (const bin of ["bin", "."]) {
      await mkdir(path.join(dir, bin), { recursive: true });
      await writeFile(path.join(dir, bin, "npm"), "#!/bin/sh\necho planted npm\n", { mode: 0o755 });
    }
    process.env.PATH = ["bin", ".", "", path.join(dir, "bin"), process.env.PATH].join(path.delimiter);
    const allowed = await call(ctx, { command: "npm --version" });
    expect(allowed.details).toMatchObject({ exitCode: 0, outside: { by: "rule" } });
    expect(allowed.content.split("\n")[2]).toMatch(/^\d+\.\d+\.\d+$/);
    // Not given anything, the project's own absolute entry is still there (a venv), and the relative ones are not.
    const plain = await call(ctx, { command: "npm --version; true" });
    expect(plain.details).not.toHaveProperty("outside");
    expect(plain.content.split("\n")[1]).toBe("planted npm");
    const entries = (await call(ctx, { command: 'echo "$PATH"' })).content.split("\n")[1]!.split(path.delimiter);
    expect(entries.filter((e) => !path.isAbsolute(e))).toEqual([]);
  });

  it("do not match an option that runs a program: git fetch --upload-pack runs sandboxed, without the network", async () => {
    const { ctx, dir } = await project({ allow: ["git fetch", "git ls-remote"] });
    const git = (args: string) => `git -c init.defaultBranch=main ${args}`;
    await call(ctx, { command: `${git("init -q remote")} && cd remote && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && cd .. && git init -q && git remote add origin ./remote` });
    const pack = path.join(dir, "pack.sh");
    await writeFile(pack, `#!/bin/sh\nif ${HAS_NETWORK}; then echo network > ${dir}/upload-ran; else echo no network > ${dir}/upload-ran; fi\nexec git-upload-pack "$@"\n`, { mode: 0o755 });
    for (const command of [`git fetch --upload-pack='${pack}' origin`, `git fetch --upload-p='${pack}' origin`, `git ls-remote --upload-pack '${pack}' origin`]) {
      const ran = await call(ctx, { command });
      expect(ran.details).not.toHaveProperty("outside");
      expect(await readFile(path.join(dir, "upload-ran"), "utf8")).toBe("no network\n");
      await rm(path.join(dir, "upload-ran"));
    }
    // The same fetch without the option is the rule's.
    expect((await call(ctx, { command: "git fetch origin" })).details).toMatchObject({ exitCode: 0, outside: { by: "rule", rules: ["git fetch"] } });
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
    const ran = await call(withPolicy(ctx, { access: "read-only" }), { command: `touch ${outside}/r` });
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
    const grant = { network: true, writable: [] };
    const first = approvals.decide({ command: "npm install", justification: "a", agent: "subagent 1 (full)", grant }, signal);
    const second = approvals.decide({ command: "npm install", justification: "b", agent: "subagent 2 (full)", grant }, signal);
    const third = approvals.decide({ command: "git push", justification: "c", agent: null, grant }, signal);
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

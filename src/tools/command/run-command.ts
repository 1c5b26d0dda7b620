// run_command: runs a bash command line in the project (or a directory inside it) and returns how it
// ended, how long it took and its output. Under `read-only` and `edit` access the command runs in the
// sandbox those levels promise, and is refused where no sandbox program exists; `full` runs it without
// one, in a PID namespace of its own where one can be made. Under `edit` the project's git settings and
// hooks are put back after the command, and its result says what was. The result is bounded by the
// output capture (the whole output goes to a spill file), so the registry never spills it again.
// Edits other agents made while it ran are kept (edit-log.ts). Under `edit` a command is given more than
// the sandbox gives when the config's allow rules match its whole line (the network), or when the model
// escalates it (offered under --approval on-request) and the user says yes (approvals.ts): then what
// the sandbox denied that same command line before (the network, writes to the places it named outside
// the project), and still in the sandbox, with everything else it keeps (sandbox-grant.ts); a command
// given a grant runs with a PATH that reaches no program in the project. The environment rules hold
// either way. A sandboxed command that failed for want of network or of a write outside the project
// says, under on-request, that it may be escalated, and what that would give. With `background` the
// command becomes one of the session's jobs (jobs.ts), in the same sandbox and after the same
// approvals, and the call returns after its first second; jobs need bubblewrap, which makes them a PID
// namespace that dies with hel, and the parent's conversation: a child's run ends before its jobs would.
import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "../../zod.js";
import { commandEnvironment } from "./environment.js";
import { commandPath, shellFor } from "./find-program.js";
import { guardGit } from "./git-guard.js";
import { guardKeptPlaces } from "./kept-guard.js";
import { OutputCapture, type CapturedOutput } from "./output.js";
import { commandDetails, formatCommandResult, putBackLines, type CommandOutside } from "./result.js";
import { sandboxDenial } from "./sandbox-denial.js";
import { jobNamespacePrefix, pidNamespacePrefix } from "./pid-namespace.js";
import { jobsOf, type BackgroundJobs } from "./jobs.js";
import { runProcess } from "./run-process.js";
import { findSandboxProgram, installAdvice, sandboxedLaunch, type Launch, type SandboxProgram } from "./sandbox.js";
import { describeGrant, grantFor, joinGrants, NETWORK_GRANT } from "./sandbox-grant.js";
import { sandboxPolicy } from "./sandbox-policy.js";
import { shellArgv } from "./shell-line.js";
import { startSharedNetwork } from "./shared-network.js";
import { pathScope, projectRelative, resolveToolPath } from "../paths.js";
import { newSpillFile } from "../spill.js";
import { ToolError, type SandboxGrant, type Tool, type ToolContext } from "../types.js";

const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 600;

const ESCALATION_OFF =
  "escalation is off in this run (--approval never), so a command cannot run outside the sandbox: leave escalate and justification out, do without what the sandbox stopped, or tell the user it needs --approval on-request";

const ARGS = {
  command: z.string(),
  // No descriptions: the names say what these are (job_output and job_kill say what a background job
  // is), a timeout out of bounds is told its bounds, and so is one that ran out.
  timeout_s: z.number().optional(),
  workdir: z.string().optional(),
  background: z.boolean().optional(),
};
const ESCALATION_ARGS = {
  escalate: z.boolean().optional().describe("Only after the sandbox stopped this command (no network, or a write outside the project): true asks the user to give it what was denied."),
  justification: z.string().optional().describe("With escalate: why the task needs it, in one sentence the user reads before answering."),
};

const checkArgs = (args: { command: string; timeout_s?: number | undefined; escalate?: boolean | undefined; justification?: string | undefined }, issues: z.core.$RefinementCtx) => {
  if (args.command.trim() === "") issues.addIssue({ code: "custom", path: ["command"], message: 'the command is empty: give the bash command line to run, e.g. "npm test"' });
  if (args.command.includes("\0")) issues.addIssue({ code: "custom", path: ["command"], message: "the command contains a NUL character, which no shell can run: remove it" });
  const t = args.timeout_s;
  if (t !== undefined && !(t > 0 && t <= MAX_TIMEOUT_S)) {
    issues.addIssue({ code: "custom", path: ["timeout_s"], message: `${t} is not a timeout: give seconds, more than 0 and at most ${MAX_TIMEOUT_S}, or leave timeout_s out for ${DEFAULT_TIMEOUT_S}` });
  }
  if (args.escalate === true && !args.justification?.trim()) {
    issues.addIssue({
      code: "custom",
      path: ["justification"],
      message: "escalate needs a justification: say in one sentence why the command needs the network or a write outside the project; the user reads it before answering",
    });
  }
};

// Without escalation the arguments, and so the tool's definition, are what they always were; a call
// that tries to escalate anyway is told why it cannot.
const RunCommandArgsSchema = z.strictObject(ARGS, { error: (issue) => (issue.code === "unrecognized_keys" && issue.keys.some((k) => k in ESCALATION_ARGS) ? ESCALATION_OFF : undefined) }).superRefine(checkArgs);
const EscalatingArgsSchema = z.strictObject({ ...ARGS, ...ESCALATION_ARGS }).superRefine(checkArgs);
export type RunCommandArgs = z.infer<typeof EscalatingArgsSchema>;

const DESCRIPTION = "Run bash in the project, no stdin. Unless access is full: no net, writes only in the project and /tmp.";

export const runCommandTool: Tool<RunCommandArgs> = {
  name: "run_command",
  description: DESCRIPTION,
  schema: RunCommandArgsSchema,
  spill: false,
  run: (args, ctx) => ctx.caller.editLog.aroundCommand(() => runCommand(args, ctx)),
};

/** run_command under --approval on-request (and edit access): the model may ask for a command to leave the sandbox. */
export const escalatingRunCommandTool: Tool<RunCommandArgs> = {
  ...runCommandTool,
  description: `${DESCRIPTION} If the sandbox stopped it, call again with escalate and justification to ask the user for what it denied.`,
  schema: EscalatingArgsSchema,
};

async function runCommand(args: RunCommandArgs, ctx: ToolContext): Promise<string> {
  const cwd = args.workdir === undefined ? ctx.projectDir : await workdir(ctx, args.workdir);
  const timeoutS = args.timeout_s ?? DEFAULT_TIMEOUT_S;
  const { access, approvals } = ctx.policy;
  const program = access === "full" ? findSandboxProgram(ctx.projectDir) : sandboxProgram(ctx.projectDir, access);
  const jobs = args.background === true ? jobsFor(ctx, program) : null;
  const widened = access === "full" ? null : await widening(args, ctx, cwd);
  const grant = widened?.grant ?? null;
  if (jobs !== null && program !== null && !ctx.policy.network) await startSharedNetwork(program.path, ctx.projectDir);
  // The session must exist and be leased before the command starts: the command is recorded in it,
  // and its .hel/ directory must exist to be protected.
  await ctx.session.claim();
  // A command under edit or full access may write anywhere in the project: the turn's checkpoint first.
  if (access !== "read-only") await ctx.changes.beforeChange(ctx.signal);

  const argv = shellArgv(shellFor(process.env), args.command);
  const network = ctx.policy.network || grant?.network === true;
  let launch: Launch;
  let putBackKept: (() => string[]) | null = null;
  let keptPolicy: { kept: string[]; nestedHel: string[] } | null = null;
  if (access === "full" || program === null) {
    const namespace = program?.kind !== "bwrap" ? null : jobs !== null ? jobNamespacePrefix(program.path) : pidNamespacePrefix(program.path);
    if (jobs !== null && namespace === null) throw new ToolError(NO_JOBS_HERE);
    const [file, ...rest] = [...(namespace ?? []), ...argv];
    launch = { file: file!, args: rest, env: {}, cleanup: async () => undefined };
  } else {
    const policy = sandboxPolicy(ctx.projectDir, access, { network, granted: grant?.writable ?? [], readOnly: ctx.policy.readOnlyPaths });
    if (access === "edit") {
      putBackKept = guardKeptPlaces(ctx.projectDir, policy.kept, policy.nestedHel);
      keptPolicy = policy;
    }
    launch = await sandboxedLaunch(program, policy, cwd, argv);
  }
  let putBackGit = access === "edit" ? guardGit(ctx.projectDir) : null;
  const capture = new OutputCapture({ secrets: ctx.policy.secrets, openSpill: () => newSpillFile(ctx), onProgress: ctx.report.onOutput });
  const commandPATH: Record<string, string> = process.env.PATH === undefined ? {} : { PATH: commandPath(process.env.PATH, ctx.projectDir, grant !== null) };
  const spec = { file: launch.file, args: launch.args, cwd, env: commandEnvironment(process.env, { ...launch.env, ...commandPATH }) };
  if (jobs !== null) {
    return jobs.start({
      command: args.command,
      spec,
      log: await newSpillFile(ctx),
      sessionDir: ctx.session.dir,
      capture: { secrets: ctx.policy.secrets, openSpill: () => newSpillFile(ctx) },
      shown: (file) => projectRelative(pathScope(ctx), file),
      onStart: (group) => ctx.session.trackCommand(group),
      putBack: () => {
        const lines = putBackLines(putBackGit?.() ?? [], putBackKept?.() ?? []);
        if (putBackGit !== null) putBackGit = guardGit(ctx.projectDir);
        if (putBackKept !== null && keptPolicy !== null) putBackKept = guardKeptPlaces(ctx.projectDir, keptPolicy.kept, keptPolicy.nestedHel);
        return lines;
      },
      cleanup: () => launch.cleanup(),
    });
  }
  try {
    let run;
    try {
      run = await runProcess(spec, { timeoutMs: timeoutS * 1000, signal: ctx.signal, output: capture, onStart: (group) => ctx.session.trackCommand(group) });
    } catch (e) {
      throw new ToolError(`the command could not be started: ${(e as Error).message}`);
    }
    const gitPutBack = putBackGit?.() ?? [];
    const keptPutBack = putBackKept?.() ?? [];
    const output = await capture.finish();
    const outside = widened?.outside ?? null;
    ctx.report.recordDetails({ ...commandDetails({ ...run, timeoutS }), ...(outside ? { outside } : {}) });
    const failed = run.ending.kind === "exit" && run.ending.code !== 0;
    // What the sandbox denied this line now is remembered with what it was given, for an escalation.
    const denial = access === "edit" && failed && approvals ? sandboxDenial(outputText(output), ctx.projectDir, cwd, network) : null;
    const denied = denial === null ? null : grantFor(denial, ctx.projectDir, ctx.policy.readOnlyPaths);
    const asked = denied === null ? null : joinGrants(grant, denied);
    if (asked !== null) approvals!.denied(args.command, asked);
    return formatCommandResult({
      ...run,
      timeoutS,
      output,
      gitPutBack,
      keptPutBack,
      spillPath: output.spillPath === null ? null : projectRelative(pathScope(ctx), output.spillPath),
      sandbox: access === "full" ? null : sandboxSummary(access, network, grant),
      outside: outside === null ? null : { ...outside, grant: grant! },
      escalation: approvals?.mode === "on-request" && denied !== null ? { denied, asked: asked! } : null,
    });
  } finally {
    await launch.cleanup();
  }
}

const NO_JOBS_HERE = "background commands need bubblewrap (Linux), which ends them with hel, and it cannot run here: run the command in the foreground, with a timeout_s";

/** The session's jobs, with room for one more; throws the refusal where a job cannot start. */
function jobsFor(ctx: ToolContext, program: SandboxProgram | null): BackgroundJobs {
  if (ctx.caller.label !== null) throw new ToolError("a subagent cannot start background commands (its jobs would outlive its run): run the command in the foreground, with a timeout_s");
  const jobs = jobsOf(ctx.session);
  if (jobs === undefined || program?.kind !== "bwrap") throw new ToolError(NO_JOBS_HERE);
  jobs.checkRoom();
  return jobs;
}

/**
 * What this call is given beyond what its access gives, and why: the network for allow rules that
 * match the whole line, or what the sandbox denied the line before for the user's yes to an
 * escalation. Throws the result the model gets when it may not be given anything.
 */
async function widening(args: RunCommandArgs, ctx: ToolContext, cwd: string): Promise<{ outside: CommandOutside; grant: SandboxGrant } | null> {
  const { access, approvals } = ctx.policy;
  // Under read-only access nothing is to change, allowed or asked for (a reviewer reads).
  if (access === "edit" && approvals && args.escalate !== true) {
    const match = approvals.allowed(args.command);
    if (match && (await Promise.all(match.writes.map((target) => writesInProject(ctx, cwd, target)))).every(Boolean)) return { outside: { by: "rule", rules: match.rules }, grant: NETWORK_GRANT };
  }
  if (args.escalate !== true) return null;
  if (approvals?.mode !== "on-request") throw new ToolError(ESCALATION_OFF);
  if (access !== "edit") throw new ToolError("escalation is not available to an agent with read-only access: this agent only reads, so do without the command");
  const grant = approvals.deniedFor(args.command);
  if (grant === null) {
    throw new ToolError(
      "escalation gives a command only what the sandbox denied that same command line, and nothing has stopped it in the sandbox yet: run it without escalate first; if the sandbox stops it, its result says so",
    );
  }
  const justification = args.justification!.trim();
  const decision = await approvals.decide({ command: args.command, justification, agent: ctx.caller.label, grant }, ctx.signal);
  if (decision === "no") {
    ctx.report.recordDetails({ kind: "refusal", justification });
    throw new ToolError(
      `the user refused to give this command ${describeGrant(grant)}, so it was not run. Do not ask again for it: do the task within the sandbox, or say in your answer what the user must run themselves`,
    );
  }
  return { outside: { by: decision, justification }, grant };
}

/** A redirection's file is the project's to write: inside it, neither in .hel/ nor in .git/. */
async function writesInProject(ctx: ToolContext, cwd: string, target: string): Promise<boolean> {
  try {
    const real = await resolveToolPath(pathScope(ctx), path.resolve(cwd, target), "write");
    const [first] = path.relative(ctx.projectDir, real).split(path.sep);
    return first !== ".git";
  } catch {
    return false;
  }
}

function outputText(output: CapturedOutput): string {
  return output.omitted === null ? output.head : `${output.head}\n${output.omitted.failing.map((f) => f.text).join("\n")}\n${output.omitted.tail}`;
}

function sandboxProgram(projectDir: string, access: "read-only" | "edit"): SandboxProgram {
  const program = findSandboxProgram(projectDir);
  if (program !== null) return program;
  throw new ToolError(`no command was run: under --access ${access} hel runs commands only inside a sandbox, and this machine has none. Tell the user to ${installAdvice()}; meanwhile use the other tools.`);
}

/** What the sandbox allows, told with a failed command's result, since the failure may come from it. */
function sandboxSummary(access: "read-only" | "edit", network: boolean, grant: SandboxGrant | null): string {
  if (access === "read-only") return "nothing is writable but a private /tmp; no network";
  const granted = grant === null || grant.writable.length === 0 ? "" : ` and ${grant.writable.join(", ")}`;
  return `only the project${granted} and a private /tmp are writable (not .hel/, nor .git hooks and config)${network ? "" : "; no network"}`;
}

async function workdir(ctx: ToolContext, given: string): Promise<string> {
  const dir = await resolveToolPath(pathScope(ctx), given, "write");
  const info = await stat(dir).catch(() => null);
  if (info === null) throw new ToolError(`workdir ${JSON.stringify(given)} does not exist: give a directory inside the project, or leave workdir out to run in the project root`);
  if (!info.isDirectory()) throw new ToolError(`workdir ${JSON.stringify(given)} is a file, not a directory: give the directory it is in, or leave workdir out`);
  return dir;
}

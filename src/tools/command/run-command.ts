// run_command: runs a bash command line in the project (or a directory inside it) and returns how it
// ended, how long it took and its output. Under `read-only` and `edit` access the command runs in the
// sandbox those levels promise, and is refused where no sandbox program exists; `full` runs it without
// one, in a PID namespace of its own where one can be made. Under `edit` the project's git settings and
// hooks are put back after the command, and its result says what was. The result is bounded by the
// output capture (the whole output goes to a spill file), so the registry never spills it again.
// Edits other agents made while it ran are kept (edit-log.ts).
import { stat } from "node:fs/promises";
import { z } from "../../zod.js";
import { commandEnvironment } from "./environment.js";
import { shellFor } from "./find-program.js";
import { guardGit } from "./git-guard.js";
import { OutputCapture } from "./output.js";
import { commandDetails, formatCommandResult } from "./result.js";
import { pidNamespacePrefix } from "./pid-namespace.js";
import { runProcess } from "./run-process.js";
import { findSandboxProgram, installAdvice, sandboxedLaunch, type Launch, type SandboxProgram } from "./sandbox.js";
import { sandboxPolicy } from "./sandbox-policy.js";
import { shellArgv } from "./shell-line.js";
import { projectRelative, resolveToolPath } from "../paths.js";
import { newSpillFile } from "../spill.js";
import { ToolError, type Tool, type ToolContext } from "../types.js";

const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 600;

const RunCommandArgsSchema = z
  .strictObject({
    command: z.string(),
    timeout_s: z.number().optional().describe(`Default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S}.`),
    workdir: z.string().optional().describe("Relative to the project."),
  })
  .superRefine((args, issues) => {
    if (args.command.trim() === "") issues.addIssue({ code: "custom", path: ["command"], message: 'the command is empty: give the bash command line to run, e.g. "npm test"' });
    if (args.command.includes("\0")) issues.addIssue({ code: "custom", path: ["command"], message: "the command contains a NUL character, which no shell can run: remove it" });
    const t = args.timeout_s;
    if (t !== undefined && !(t > 0 && t <= MAX_TIMEOUT_S)) {
      issues.addIssue({ code: "custom", path: ["timeout_s"], message: `${t} is not a timeout: give seconds, more than 0 and at most ${MAX_TIMEOUT_S}, or leave timeout_s out for ${DEFAULT_TIMEOUT_S}` });
    }
  });
export type RunCommandArgs = z.infer<typeof RunCommandArgsSchema>;

export const runCommandTool: Tool<RunCommandArgs> = {
  name: "run_command",
  description: [
    "Run a bash command in the project: returns exit code, time and output (stdout and stderr together).",
    "No stdin; background processes end with it. Long output keeps head and tail, the whole in a file.",
    "Unless access is full: writes only in the project and /tmp, no network.",
  ].join(" "),
  schema: RunCommandArgsSchema,
  spill: false,
  run: (args, ctx) => (ctx.editLog ? ctx.editLog.aroundCommand(() => runCommand(args, ctx)) : runCommand(args, ctx)),
};

async function runCommand(args: RunCommandArgs, ctx: ToolContext): Promise<string> {
  const cwd = args.workdir === undefined ? ctx.projectDir : await workdir(ctx, args.workdir);
  const timeoutS = args.timeout_s ?? DEFAULT_TIMEOUT_S;
  const access = ctx.access;
  const program = access === "full" ? findSandboxProgram(ctx.projectDir) : sandboxProgram(ctx.projectDir, access);
  // The session must exist and be leased before the command starts: the command is recorded in it,
  // and its .hel/ directory must exist to be protected.
  await ctx.claimSessionDir?.();
  // A command under edit or full access may write anywhere in the project: the turn's checkpoint first.
  if (access !== "read-only") await ctx.beforeChange?.();

  const argv = shellArgv(shellFor(process.env), args.command);
  let launch: Launch;
  if (program === null || access === "full") {
    const namespace = program?.kind === "bwrap" ? pidNamespacePrefix(program.path) : null;
    const [file, ...rest] = [...(namespace ?? []), ...argv];
    launch = { file: file!, args: rest, env: {}, cleanup: async () => undefined };
  } else launch = await sandboxedLaunch(program, sandboxPolicy(ctx.projectDir, access, ctx.network ?? false), cwd, argv);
  const putBackGit = access === "edit" ? guardGit(ctx.projectDir) : null;
  const capture = new OutputCapture({ secrets: ctx.secrets, openSpill: () => newSpillFile(ctx), onProgress: ctx.onOutput });
  try {
    let run;
    try {
      run = await runProcess(
        { file: launch.file, args: launch.args, cwd, env: commandEnvironment(process.env, launch.env) },
        { timeoutMs: timeoutS * 1000, signal: ctx.signal, output: capture, onStart: ctx.trackCommand },
      );
    } catch (e) {
      throw new ToolError(`the command could not be started: ${(e as Error).message}`);
    }
    const gitPutBack = putBackGit?.() ?? [];
    const output = await capture.finish();
    ctx.recordDetails?.(commandDetails({ ...run, timeoutS }));
    return formatCommandResult({
      ...run,
      timeoutS,
      output,
      gitPutBack,
      spillPath: output.spillPath === null ? null : projectRelative(ctx, output.spillPath),
      sandbox: access === "full" ? null : sandboxSummary(access, ctx.network ?? false),
    });
  } finally {
    await launch.cleanup();
  }
}

function sandboxProgram(projectDir: string, access: "read-only" | "edit"): SandboxProgram {
  const program = findSandboxProgram(projectDir);
  if (program !== null) return program;
  throw new ToolError(
    `no command was run: under --access ${access} hel runs commands only inside a sandbox, and this machine has none. Tell the user to ${installAdvice()}; meanwhile use the other tools.`,
  );
}

/** What the sandbox allows, told with a failed command's result, since the failure may come from it. */
function sandboxSummary(access: "read-only" | "edit", network: boolean): string {
  if (access === "read-only") return "nothing is writable but a private /tmp; no network";
  return `only the project and a private /tmp are writable (not .hel/, nor .git hooks and config)${network ? "" : "; no network"}`;
}

async function workdir(ctx: ToolContext, given: string): Promise<string> {
  const dir = await resolveToolPath(ctx, given, "write");
  const info = await stat(dir).catch(() => null);
  if (info === null) throw new ToolError(`workdir ${JSON.stringify(given)} does not exist: give a directory inside the project, or leave workdir out to run in the project root`);
  if (!info.isDirectory()) throw new ToolError(`workdir ${JSON.stringify(given)} is a file, not a directory: give the directory it is in, or leave workdir out`);
  return dir;
}

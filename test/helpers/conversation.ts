// A conversation opened in this process, as the hel command opens one (the same flags, project,
// session files and request bytes), against a simulator over real HTTP: for the wiring tests that need
// no process of their own (no kill, no lease race, no terminal, no exit status of the binary).
// Output goes to strings; the requests are the simulator's.
import { openConversation, type Conversation, type ConversationSettings } from "../../src/conversation/conversation.js";
import type { Io } from "../../src/conversation/project.js";
import { Readable } from "node:stream";
import { runOneShot } from "../../src/cli/modes/one-shot.js";
import { runStdin } from "../../src/cli/modes/stdin.js";
import { parseArgs, type RunOptions } from "../../src/cli/options.js";
import { openProject } from "../../src/cli/open-project.js";
import { exitStatus } from "../../src/cli/run.js";
import { openOnTerminal } from "../../src/cli/terminal-conversation.js";
import type { TurnOutcome } from "../../src/agent/loop/loop.js";
import type { Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { helEnv, ROOT, type HelResult } from "./hel.js";
import { hasExitCode } from "../../src/errors.js";
import { errorText } from "../../src/cli/term/kit/style.js";
import { runSessionsCommand } from "../../src/cli/sessions-command.js";
import { runStatsCommand } from "../../src/cli/stats-command.js";

export interface InProcessRun {
  /** hel's arguments (`-C <project>` among them); for runInProcess, ending with the instruction. */
  args: string[];
  /** For runInProcess without an instruction: stdin's lines, each an instruction. */
  input?: string;
  baseUrl: string;
  env?: Record<string, string | undefined>;
}

interface Captured {
  io: Io;
  stdout(): string;
  stderr(): string;
}

function capture(env: NodeJS.ProcessEnv): Captured {
  let stdout = "";
  let stderr = "";
  return {
    // As from a pipe: no terminal, so no spinner and no colour.
    io: { stdout: { write: (text) => void (stdout += text) }, stderr: { write: (text) => void (stderr += text) }, env, cwd: ROOT },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

function flagsOf(run: InProcessRun): { flags: RunOptions; env: NodeJS.ProcessEnv } {
  const env = helEnv(run.baseUrl, run.env);
  const invocation = parseArgs(run.args, env, "test");
  if (invocation.kind !== "run") throw new Error(`not a run: ${run.args.join(" ")}`);
  return { flags: invocation.options, env };
}

/**
 * `hel <args> "<instruction>"`, or `… | hel <args>` with `input`, in this process: the exit status and
 * what it printed, as runHel gives them.
 */
export async function runInProcess(run: InProcessRun): Promise<Omit<HelResult, "signal">> {
  const out = capture(helEnv(run.baseUrl, run.env));
  return { code: await runWith(run, out), stdout: out.stdout(), stderr: out.stderr() };
}

/** A run of hel; `hel sessions …` needs no base URL. */
type HelRunInProcess = Omit<InProcessRun, "baseUrl"> & { baseUrl?: string };

async function runWith(run: HelRunInProcess, out: Captured): Promise<number> {
  const invocation = parseArgs(run.args, out.io.env, "test");
  // `hel sessions ls | show | rm` write to the process's own streams; a fork masks the process's key.
  if (invocation.kind === "sessions" && invocation.action !== "fork") return writingTo(out, () => runSessionsCommand(invocation, { version: "test", env: out.io.env }));
  if (invocation.kind === "stats") return runStatsCommand(invocation, out.io);
  if (invocation.kind !== "run") throw new Error(`not a run: ${run.args.join(" ")}`);
  const flags = invocation.options;
  const project = await openProject(flags, out.io.env.DEEPSEEK_API_KEY!, out.io);
  const ended = flags.prompt.length > 0 ? await runOneShot(project, flags.prompt.join(" "), out.io) : await runStdin(project, out.io, Readable.from([run.input ?? ""]));
  return exitStatus(ended);
}

/** What `command` writes to process.stdout and process.stderr goes to `out` instead, until it ends. */
async function writingTo<T>(out: Captured, command: () => Promise<T>): Promise<T> {
  const streams = [process.stdout, process.stderr] as const;
  const writes = streams.map((stream) => stream.write);
  streams.forEach((stream, i) => {
    const to = [out.io.stdout, out.io.stderr][i]!;
    stream.write = ((text: string | Uint8Array) => (to.write(typeof text === "string" ? text : Buffer.from(text).toString()), true)) as typeof stream.write;
  });
  try {
    return await command();
  } finally {
    streams.forEach((stream, i) => (stream.write = writes[i]!));
  }
}

/**
 * As runInProcess, `hel sessions ls | show | rm` and `hel stats` too, and a failure ends the run as src/cli/main.ts
 * ends the process: one `hel: ` line on stderr after what was printed before it, and the error's exit
 * status (1 when it has none).
 */
export async function runHelInProcess(run: HelRunInProcess): Promise<Omit<HelResult, "signal">> {
  const out = capture(helEnv(run.baseUrl, run.env));
  let code: number;
  try {
    code = await runWith(run, out);
  } catch (error) {
    code = hasExitCode(error) ? error.exitCode : 1;
    out.io.stderr.write(`hel: ${errorText(error instanceof Error ? error.message : String(error))}\n`);
  }
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

export interface TestConversation {
  conversation: Conversation;
  instruct(text: string, signal?: AbortSignal): Promise<TurnOutcome>;
  /** The request bodies the simulator received so far, in order. */
  bodies(): ChatRequest[];
  stdout(): string;
  stderr(): string;
  /** Prints the closing lines and releases the session. */
  close(): Promise<void>;
}

/** What a front end of a test's own hands in, in place of the terminal's readers and view. */
export type TestFrontEnd = Pick<ConversationSettings, "readers" | "flush">;

/**
 * A conversation to drive turn by turn, as the interactive prompt would (without a terminal); with
 * `frontEnd`, as a front end of the test's own drives it, the terminal's readers and view left out.
 */
export async function openTestConversation(run: Omit<InProcessRun, "baseUrl" | "input"> & { sim: Simulator; interactive?: boolean; frontEnd?: TestFrontEnd }): Promise<TestConversation> {
  const { flags, env } = flagsOf({ ...run, baseUrl: run.sim.url });
  const out = capture(env);
  const project = await openProject(flags, env.DEEPSEEK_API_KEY!, out.io);
  const settings = { resume: project.options.resume, interactive: run.interactive ?? false };
  const terminal = run.frontEnd ? null : await openOnTerminal(project, settings, out.io);
  const conversation = terminal?.conversation ?? (await openConversation(project, { ...settings, ...run.frontEnd! }, out.io));
  return {
    conversation,
    instruct: (text, signal = new AbortController().signal) => conversation.instruct(text, signal),
    bodies: () => run.sim.requests.map((r) => r.body as ChatRequest),
    stdout: out.stdout,
    stderr: out.stderr,
    async close() {
      await (terminal ?? conversation).end(false);
      await conversation.close();
    },
  };
}

// One hook command run: `sh -c` outside the sandbox (it is the user's own program), in a process group
// and, where one can be made, a PID namespace of its own, so that its timeout or hel's exit ends all it
// started, `setsid` included; with the environment a command gets (no API key, no credential) and a
// PATH no project file can shadow, the event's JSON on stdin. A trusted project's hook runs in the
// project; the user's own in hel's own empty folder, where `npx` finds nothing the project planted
// (tools/program-place.ts): HEL_PROJECT_DIR and the payload's `cwd` name the project. What it prints
// is bounded, cleaned of terminal escape sequences and masked of secrets before anyone reads it.
import { commandEnvironment } from "../tools/command/environment.js";
import { TextCleaner } from "../tools/command/clean-text.js";
import { pidNamespacePrefix } from "../tools/command/pid-namespace.js";
import { runProcess } from "../tools/command/run-process.js";
import { findSandboxProgram } from "../tools/command/sandbox.js";
import { outsideDir, pathOutside } from "../tools/program-place.js";
import { redactSecrets, redactSecretTail } from "../redact.js";
import type { Hook } from "./hook-config.js";

/** Of each stream, what is kept: a hook says a line or a few, not a log. */
const MAX_OUTPUT_CHARS = 8000;
const DEFAULT_TIMEOUT_S = 60;

export interface HookRun {
  /** The exit code; null when it was ended (its timeout, an interrupt) or died of a signal. */
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

export interface HookPlace {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  secrets: readonly string[];
}

export async function runHook(hook: Pick<Hook, "command" | "timeout_s" | "inProject">, payload: object, place: HookPlace, signal: AbortSignal): Promise<HookRun> {
  const streams = [new Bounded(place.secrets), new Bounded(place.secrets)] as const;
  const { projectDir, env } = place;
  const cwd = hook.inProject ? projectDir : await outsideDir(env, projectDir);
  const program = findSandboxProgram(projectDir, env);
  const namespace = program?.kind === "bwrap" ? pidNamespacePrefix(program.path) : null;
  const [file, ...args] = [...(namespace ?? []), "/bin/sh", "-c", hook.command];
  const { ending } = await runProcess(
    { file: file!, args, cwd, env: commandEnvironment(env, { HEL_PROJECT_DIR: projectDir, PATH: pathOutside(env.PATH, projectDir) }), stdin: Buffer.from(JSON.stringify(payload)) },
    {
      timeoutMs: (hook.timeout_s ?? DEFAULT_TIMEOUT_S) * 1000,
      signal,
      output: { write: (chunk, stream) => (streams[stream].push(chunk), true), drained: () => Promise.resolve() },
    },
  );
  const [stdout, stderr] = streams.map((s) => s.end());
  return { exitCode: ending.kind === "exit" ? ending.code : null, timedOut: ending.kind === "timeout", stdout: stdout!, stderr: stderr! };
}

/** One stream, cleaned as it comes, cut at its bound, and masked. */
class Bounded {
  private readonly cleaner = new TextCleaner();
  private text = "";
  private cut = false;

  constructor(private readonly secrets: readonly string[]) {}

  push(chunk: Buffer): void {
    if (!this.cut) this.keep(this.cleaner.push(chunk));
  }

  end(): string {
    if (!this.cut) this.keep(this.cleaner.end());
    const masked = redactSecrets(this.text, this.secrets);
    // A secret the cut went through is masked by its start.
    return this.cut ? `${redactSecretTail(masked, this.secrets)}… (cut at ${MAX_OUTPUT_CHARS} characters)` : masked.trim();
  }

  private keep(text: string): void {
    this.text += text;
    if (this.text.length <= MAX_OUTPUT_CHARS) return;
    this.text = this.text.slice(0, MAX_OUTPUT_CHARS);
    this.cut = true;
  }
}

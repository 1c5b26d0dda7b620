// One hook command run: `sh -c` in the project directory, outside the sandbox (it is the user's own
// program), in a process group of its own, with the environment a command gets (no API key, no
// credential), the event's JSON on stdin, and a timeout that ends the whole group. What it prints is
// bounded, cleaned of terminal escape sequences and masked of secrets before anyone reads it.
import { commandEnvironment } from "../tools/command/environment.js";
import { TextCleaner } from "../tools/command/clean-text.js";
import { runProcess } from "../tools/command/run-process.js";
import { redactSecrets, redactSecretTail } from "../redact.js";

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

export async function runHook(command: string, timeoutS: number | undefined, payload: object, place: HookPlace, signal: AbortSignal): Promise<HookRun> {
  const streams = [new Bounded(place.secrets), new Bounded(place.secrets)] as const;
  const { ending } = await runProcess(
    { file: "/bin/sh", args: ["-c", command], cwd: place.projectDir, env: commandEnvironment(place.env, { HEL_PROJECT_DIR: place.projectDir }), stdin: Buffer.from(JSON.stringify(payload)) },
    {
      timeoutMs: (timeoutS ?? DEFAULT_TIMEOUT_S) * 1000,
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

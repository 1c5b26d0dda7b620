// Runs the built hel CLI as a child process, as a user would, against a simulator over real HTTP.
import { spawn, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HEL_BIN, PROJECT_ROOT } from "../../scripts/hel-bin.js";

export const ROOT = PROJECT_ROOT;
export const HEL = HEL_BIN;
/** A config home with nothing in it (it does not exist). */
export const NO_CONFIG_HOME = join(tmpdir(), "hel-test-no-config-home");

export interface HelResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface HelRun {
  args: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string;
  baseUrl?: string;
}

export function helEnv(baseUrl: string | undefined, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // No config file of the machine's user: a test's settings are the ones it gives.
  const env: NodeJS.ProcessEnv = { ...process.env, DEEPSEEK_API_KEY: "sk-test", HEL_RETRY_BASE_MS: "20", HEL_DEBUG: undefined, XDG_CONFIG_HOME: NO_CONFIG_HOME };
  if (baseUrl) env.HEL_BASE_URL = baseUrl;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function startHel(run: HelRun): ChildProcess {
  return spawn(process.execPath, [HEL, ...run.args], { cwd: run.cwd ?? ROOT, env: helEnv(run.baseUrl, run.env), stdio: ["pipe", "pipe", "pipe"] });
}

export function runHel(run: HelRun): Promise<HelResult> {
  const child = startHel(run);
  return collect(child, run.input);
}

/** Collects a child's output until it exits; stdin gets `input` and is closed, unless input is null. */
export function collect(child: ChildProcess, input?: string | null): Promise<HelResult> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  if (input !== null) child.stdin!.end(input ?? "");
  return new Promise((done) => child.on("close", (code, signal) => done({ code, signal, stdout, stderr })));
}

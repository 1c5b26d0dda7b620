// Runs one process in a group of its own (a new session: no terminal, and signals reach every process
// it starts) with stdin at end of file, or at it after the bytes given (a hook's JSON), and waits for
// the process itself to exit, not for its output pipes to close: a background child can hold those open
// for ever. After the exit the pipes get a short drain, then whatever is left in the group is ended. A
// timeout or an abort ends the whole group at once. Groups still running when hel exits are killed on
// the way out.
import { spawn } from "node:child_process";
import { endGroup, groupOf, killGroupNow } from "./process-group.js";
import type { ProcessGroup } from "../types.js";

/** After the process exits, how long its pipes may stay open before the group is ended. */
const DRAIN_MS = 100;
/** Between SIGTERM and SIGKILL. */
const GRACE_MS = 2000;
/** After the group is gone, how long a pipe held by an escaped process may keep the call waiting. */
const LINGER_MS = 1000;

export interface ProcessSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** What stdin holds before its end; none: at end of file at once. */
  stdin?: Buffer;
}

export interface OutputSink {
  /** false: pause the pipes until drained() resolves. */
  write(chunk: Buffer, stream: 0 | 1): boolean;
  drained(): Promise<void>;
}

export interface RunControls {
  timeoutMs: number;
  signal: AbortSignal;
  output: OutputSink;
  /** Told the group once the process has started; what it returns is called once the group is gone. */
  onStart?(group: ProcessGroup): Promise<(() => Promise<void>) | undefined>;
}

export type Ending = { kind: "exit"; code: number | null; signal: NodeJS.Signals | null } | { kind: "timeout" } | { kind: "interrupted" };

const running = new Set<number>();
let exitHookInstalled = false;

export async function runProcess(spec: ProcessSpec, controls: RunControls): Promise<{ ending: Ending; wallMs: number }> {
  const started = performance.now();
  const child = spawn(spec.file, [...spec.args], { cwd: spec.cwd, env: spec.env, detached: true, stdio: [spec.stdin ? "pipe" : "ignore", "pipe", "pipe"] });
  // A process that never reads its stdin closes it under the write: that is its business, not an error.
  if (spec.stdin) child.stdin!.on("error", () => undefined).end(spec.stdin);
  const pipes = [child.stdout!, child.stderr!] as const;
  let paused = false;
  pipes.forEach((pipe, i) =>
    pipe.on("data", (chunk: Buffer) => {
      if (controls.output.write(chunk, i as 0 | 1) || paused) return;
      paused = true;
      for (const p of pipes) p.pause();
      void controls.output.drained().then(() => {
        paused = false;
        for (const p of pipes) p.resume();
      });
    }),
  );
  const pipesClosed = Promise.all(pipes.map((pipe) => new Promise((resolve) => pipe.once("close", resolve))));
  const exited = new Promise<Ending>((resolve) => child.once("exit", (code, signal) => resolve({ kind: "exit", code, signal })));
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
  } catch (e) {
    for (const pipe of pipes) pipe.destroy();
    throw e;
  }

  const pgid = child.pid!;
  running.add(pgid);
  installExitHook();
  let release: (() => Promise<void>) | undefined;
  let ended = false;
  try {
    release = await controls.onStart?.(groupOf(pgid));
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort = (): void => undefined;
    const stopped = new Promise<Ending>((resolve) => {
      timer = setTimeout(() => resolve({ kind: "timeout" }), controls.timeoutMs);
      onAbort = () => resolve({ kind: "interrupted" });
      if (controls.signal.aborted) onAbort();
      else controls.signal.addEventListener("abort", onAbort, { once: true });
    });
    const ending = await Promise.race([exited, stopped]);
    const wallMs = performance.now() - started;
    clearTimeout(timer);
    controls.signal.removeEventListener("abort", onAbort);

    if (ending.kind === "exit") await within(pipesClosed, DRAIN_MS);
    await endGroup(pgid, GRACE_MS);
    ended = true;
    await exited;
    await within(pipesClosed, LINGER_MS);
    return { ending, wallMs };
  } finally {
    // Reached without ending the group only when something failed while the command ran.
    if (!ended) killGroupNow(pgid);
    for (const pipe of pipes) pipe.destroy();
    running.delete(pgid);
    await release?.();
  }
}

/** Waits for `promise`, or `ms` at most; the timer never outlives the wait, so hel can exit at once. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pgid of running) killGroupNow(pgid);
  });
}

// A session's background jobs: commands run_command started with `background: true`, running on while
// the conversation goes on. A job's output is captured in windows: each look (job_output) takes what
// came since the last one, bounded and spilled as a command's output is (output.ts), while the whole
// of it, cleaned and redacted, goes to a log in the session's spill/ directory, which outlives hel.
// At most MAX_JOBS run at once. A job ends when it exits, when job_kill ends it, or with hel: its
// process is hel's own child, confined in a PID namespace that dies with it (run-command.ts), and on
// the way out every group still running is killed (run-process.ts). Which jobs run is written to the
// session's jobs.json at each start and end, so a resumed session can say which ended with hel.
// The conversation attaches its jobs to the session port it gives its own tools; a port without them
// (a child's, a tool run alone) has none.
import { createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { writeFileAtomic } from "../../fs/atomic-write.js";
import { readRegularFile } from "../../fs/regular-file.js";
import path from "node:path";
import { z } from "../../zod.js";
import { OutputCapture, type CaptureOptions } from "./output.js";
import { commandDetails, commandHeadline, withOutput } from "./result.js";
import { runProcess, type Ending, type ProcessSpec, type RunControls } from "./run-process.js";
import { ToolError, type SessionPort } from "../types.js";

const MAX_JOBS = 8;
export const MAX_WAIT_S = 30;
/** What a job printed in this long is in run_command's answer. */
const FIRST_LOOK_MS = 1000;
/** After new output wakes a waiting look, how long the rest of that burst may take to come. */
const BURST_MS = 100;
/** No timeout: a job runs until it exits or is killed (the longest a timer can wait). */
const NO_TIMEOUT_MS = 2 ** 31 - 1;

/** What readers are told of a job: its start, and its end (`killed`: by job_kill). */
export type JobEvent = { type: "job_start"; job: number; command: string } | { type: "job_end"; job: number; command: string; exitCode: number | null; signal: string | null; killed: boolean };

/** A job as /jobs lists it. */
export interface JobSummary {
  job: number;
  command: string;
  running: boolean;
  /** How it ended: "exit code 0 · 3.10 s"; null while it runs. */
  ended: string | null;
  /** Where its whole output is, as the model is shown paths. */
  log: string;
}

export interface JobStart {
  command: string;
  spec: ProcessSpec;
  /** Absolute path of the new log file, in the session's spill/. */
  log: string;
  /** The session's directory, where jobs.json is kept. */
  sessionDir: string;
  capture: Omit<CaptureOptions, "onText" | "onProgress">;
  /** How to show an absolute path of the session to the model. */
  shown(file: string): string;
  onStart: RunControls["onStart"];
  /**
   * Puts back what the job changed of the places kept from commands (git's settings and hooks, what
   * the sandbox keeps read-only), then watches them afresh: at each look and at the end, so that what
   * a long job changes there is undone as the model looks on. Lines for the model about what it did.
   */
  putBack(): string[];
  /** Called once the job ended: removes what its launch made. */
  cleanup(): Promise<void>;
}

interface Job {
  id: number;
  command: string;
  started: number;
  log: string;
  logStream: WriteStream;
  window: OutputCapture;
  freshBytes: number;
  ending: Ending | null;
  wallMs: number;
  killed: boolean;
  notes: string[];
  stop: AbortController;
  done: Promise<void>;
  wake: (() => void)[];
  newWindow(): OutputCapture;
  shown(file: string): string;
  putBack(): string[];
}

const bySession = new WeakMap<SessionPort, BackgroundJobs>();

/** `session`, whose tools now reach `jobs`. */
export function withJobs<T extends SessionPort>(session: T, jobs: BackgroundJobs): T {
  bySession.set(session, jobs);
  return session;
}

export function jobsOf(session: SessionPort): BackgroundJobs | undefined {
  return bySession.get(session);
}

const JobsFile = z.object({ jobs: z.array(z.object({ job: z.number(), command: z.string(), log: z.string(), running: z.boolean() })) });

export class BackgroundJobs {
  private readonly jobs = new Map<number, Job>();
  private next = 1;
  private sessionDir: string | null = null;
  private saving: Promise<void> = Promise.resolve();
  /** Set when the conversation closes: the jobs end with hel, and are recorded and told as running then. */
  private closing = false;

  constructor(private readonly onEvent: (event: JobEvent) => void) {}

  list(): JobSummary[] {
    return [...this.jobs.values()].map((job) => ({ job: job.id, command: job.command, running: job.ending === null, ended: job.ending === null ? null : this.headline(job), log: job.log }));
  }

  running(): number {
    return [...this.jobs.values()].filter((job) => job.ending === null).length;
  }

  /** Refuses a job over the limit; call before anything of it is made. */
  checkRoom(): void {
    if (this.running() >= MAX_JOBS) {
      const ids = [...this.jobs.values()].filter((j) => j.ending === null).map((j) => j.id);
      throw new ToolError(`${MAX_JOBS} background jobs run already (${ids.join(", ")}): end one with job_kill {job} first, or run this command in the foreground`);
    }
  }

  /** Starts the job; resolves, after its first second or its end, to run_command's answer. */
  async start(start: JobStart): Promise<string> {
    this.checkRoom();
    const id = this.next++;
    this.sessionDir = start.sessionDir;
    const logStream = createWriteStream(start.log, { flags: "wx" });
    logStream.on("error", () => undefined);
    const stop = new AbortController();
    const job: Job = {
      id,
      command: start.command,
      started: performance.now(),
      log: start.shown(start.log),
      logStream,
      freshBytes: 0,
      ending: null,
      wallMs: 0,
      killed: false,
      notes: [],
      stop,
      done: Promise.resolve(),
      wake: [],
      window: null as unknown as OutputCapture,
      newWindow: () => new OutputCapture({ ...start.capture, onText: (text) => logStream.write(text) }),
      shown: start.shown,
      putBack: start.putBack,
    };
    job.window = job.newWindow();
    const sink = {
      write: (chunk: Buffer, stream: 0 | 1) => {
        job.freshBytes += chunk.length;
        this.wakeUp(job);
        return job.window.write(chunk, stream);
      },
      drained: () => job.window.drained(),
    };
    let started = false;
    const run = runProcess(start.spec, {
      timeoutMs: NO_TIMEOUT_MS,
      signal: stop.signal,
      output: sink,
      onStart: async (group) => {
        started = true;
        this.onEvent({ type: "job_start", job: id, command: job.command });
        await this.record();
        return start.onStart?.(group);
      },
    });
    job.done = run.then(
      async ({ ending, wallMs }) => {
        job.notes.push(...start.putBack());
        await start.cleanup();
        job.ending = ending;
        job.wallMs = wallMs;
        if (this.closing) return;
        const details = commandDetails({ ending, wallMs, timeoutS: 0 });
        this.onEvent({ type: "job_end", job: id, command: job.command, exitCode: details.exitCode, signal: details.signal, killed: job.killed });
        await this.record();
        this.wakeUp(job);
      },
      async () => {
        job.ending = { kind: "exit", code: null, signal: null };
        await start.cleanup();
      },
    );
    this.jobs.set(id, job);
    // A command that could not be started is no job: its error is the call's.
    await Promise.race([job.done, new Promise((resolve) => setTimeout(resolve, FIRST_LOOK_MS))]);
    if (!started) {
      this.jobs.delete(id);
      logStream.end();
      await job.done;
      const error = await run.then(
        () => null,
        (e: unknown) => (e as Error).message,
      );
      throw new ToolError(`the command could not be started: ${error ?? "it ended before it began"}`);
    }
    return this.look(id, 0, new AbortController().signal);
  }

  /** job_output: the output since the last look, after waiting up to `waitS` for some or for the end. */
  async look(id: number, waitS: number, signal: AbortSignal): Promise<string> {
    const job = this.find(id);
    if (job.ending === null && job.freshBytes === 0 && waitS > 0) {
      await this.waitForNews(job, waitS * 1000, signal);
      if (job.ending === null) await sleep(BURST_MS);
    }
    const window = job.window;
    job.window = job.newWindow();
    job.freshBytes = 0;
    const output = await window.finish();
    if (job.ending !== null) job.logStream.end();
    const header = job.ending === null ? `job ${id} running · ${seconds(performance.now() - job.started)}` : `job ${id} ${this.headline(job)}`;
    if (job.ending === null) job.notes.push(...job.putBack());
    const lines = [header, ...job.notes.splice(0)];
    return withOutput(lines, output, output.spillPath === null ? null : job.shown(output.spillPath));
  }

  /** job_kill: ends the job's process group; its last output with how it ended. */
  async kill(id: number, signal: AbortSignal): Promise<string> {
    const job = this.find(id);
    if (job.ending === null) {
      job.killed = true;
      job.stop.abort();
      await job.done;
    }
    return this.look(id, 0, signal);
  }

  /** Ends every running job: the conversation is closing. */
  async endAll(): Promise<void> {
    this.closing = true;
    await this.saving;
    for (const job of this.jobs.values()) job.stop.abort();
    await Promise.all([...this.jobs.values()].map((job) => job.done));
  }

  private find(id: number): Job {
    const job = this.jobs.get(id);
    if (job !== undefined) return job;
    const known = [...this.jobs.keys()];
    throw new ToolError(`there is no job ${id}${known.length > 0 ? ` (jobs: ${known.join(", ")})` : ""}: jobs end with hel, and ids count from 1 in each run; start it again with run_command {background: true}`);
  }

  private headline(job: Job): string {
    if (job.killed) return `ended by job_kill · ${seconds(job.wallMs)}`;
    return commandHeadline(commandDetails({ ending: job.ending!, wallMs: job.wallMs, timeoutS: 0 }));
  }

  private wakeUp(job: Job): void {
    for (const wake of job.wake.splice(0)) wake();
  }

  private async waitForNews(job: Job, ms: number, signal: AbortSignal): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort = (): void => undefined;
    await new Promise<void>((resolve) => {
      job.wake.push(resolve);
      timer = setTimeout(resolve, ms);
      onAbort = resolve;
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }

  /** jobs.json: which jobs run now, for a resumed session's note. */
  private async record(): Promise<void> {
    const dir = this.sessionDir;
    if (dir === null) return;
    // One write after another, each of the table as it is then.
    this.saving = this.saving.then(async () => {
      const jobs = [...this.jobs.values()].map((job) => ({ job: job.id, command: job.command, log: job.log, running: job.ending === null }));
      // Atomic, and by rename: a link put in the record's place is replaced, never written through.
      await writeFileAtomic(jobsFile(dir), Buffer.from(`${JSON.stringify({ jobs })}\n`)).catch(() => undefined);
    });
    await this.saving;
  }
}

const jobsFile = (sessionDir: string): string => path.join(sessionDir, "jobs.json");

/**
 * The jobs a session's last hel process left running when it ended (they ended with it), once: the
 * record is removed as it is read. Empty when there is none, or the record cannot be read.
 */
export async function jobsLeftRunning(sessionDir: string): Promise<{ job: number; command: string; log: string }[]> {
  const file = jobsFile(sessionDir);
  // A regular file of bounded size, not followed through a link.
  const text = await readRegularFile(file, 1 << 20, false).catch(() => null);
  if (text === null) return [];
  await rm(file, { force: true });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const record = JobsFile.safeParse(parsed);
  return record.success ? record.data.jobs.filter((job) => job.running) : [];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

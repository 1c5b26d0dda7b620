// Runs a suite: for each repetition and condition, a fresh temporary copy of the suite's fixture, the
// real hel CLI as child processes with --record, a wall-clock limit per run (after which hel is killed
// and the run fails with no further requests), then the suite's judges. Writes each run's run.json next
// to hel's record files and returns the runs; summary.ts turns them into the tables.
//
// Offline (the default) every run gets its own simulator, started in-process with the suite's policy:
// the prefix cache then starts empty for each run, so a run's cache figures do not depend on which runs
// came before it, and the processes of one run (h9's restart and resume) share one cache, as they would
// share DeepSeek's. Online, hel talks to DeepSeek with the caller's DEEPSEEK_API_KEY.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { z } from "../src/zod.js";
import { HEL_BIN, PROJECT_ROOT } from "../scripts/hel-bin.js";
import { startSimulator, type SimOptions } from "../sim/index.js";
import { freshEquivalent, offPeakCost, peakPrompt } from "./costs.js";
import { runJudges, type CheckOutcome } from "./judges.js";
import type { KeyFigures, ProcessResult, RunResult } from "./results.js";
import { readRecordDir, sumRequests, type RecordDir } from "./records.js";
import type { HelOffer, ProjectCheck, RunRequest, Suite } from "./suite.js";

export const ROOT = PROJECT_ROOT;
export { HEL_BIN };
export const DEFAULT_TIMEOUT_MS = 120_000;
export const OFFLINE_MODEL = "deepseek-flash";
/** Time a suite's check (a node script in the project) may take. */
const CHECK_LIMIT_MS = 60_000;
/** Time hel gets to stop after SIGTERM (it aborts the instruction and writes its record) before SIGKILL. */
const KILL_GRACE_MS = 2_000;

export interface SuiteRunOptions {
  suite: Suite;
  conditions: string[];
  repeat: number;
  /** The suite's output directory (runs go to <out>/<condition>/run-<n>). */
  out: string;
  /** null: offline on the simulator; otherwise the DeepSeek model to use. */
  online: { model: string } | null;
  timeoutMs?: number;
  /** Offline only: extra simulator options (tests script faults with them). */
  sim?: Partial<SimOptions>;
  /** Progress lines (default: nothing). */
  log?: (line: string) => void;
  /** Keep each run's project copy instead of deleting it after judging. */
  keepProjects?: boolean;
  /** What the hel under test offers (readHelOffer); plans use it. */
  hel: HelOffer;
}

const JsonLineSchema = z.object({ session_id: z.string(), answer: z.string().nullable(), exit_reason: z.string() });

export async function runSuite(o: SuiteRunOptions): Promise<RunResult[]> {
  if (!existsSync(HEL_BIN)) throw new Error(`hel is not built (${HEL_BIN} is missing) — run npm run build, or pass --build`);
  const unknown = o.conditions.filter((c) => !(c in o.suite.conditions));
  if (unknown.length) throw new Error(`suite ${o.suite.name} has no condition ${unknown.join(", ")}; it has ${Object.keys(o.suite.conditions).join(", ")}`);
  const runs: RunResult[] = [];
  for (let rep = 1; rep <= o.repeat; rep++) {
    const params = o.suite.params();
    for (const condition of o.conditions) {
      const run = await runOne(o, condition, rep, params);
      runs.push(run);
      o.log?.(progressLine(o, run));
    }
  }
  return runs;
}

function progressLine(o: SuiteRunOptions, run: RunResult): string {
  const verdicts = o.suite.judges.map((j) => `${j.title} ${run.judges[j.id]?.pass ? "✓" : "✗"}`).join("  ");
  const t = run.totals;
  const state = run.timed_out ? " · TIMED OUT" : run.completed ? "" : " · hel failed";
  return `${o.suite.name} · ${run.condition} · run ${run.repetition}/${o.repeat}  ${verdicts}  · ` + `${t.all.requests} requests (${t.parent.requests}+${t.child.requests}) · ${(run.wall_ms / 1000).toFixed(1)} s${state}`;
}

async function runOne(o: SuiteRunOptions, condition: string, repetition: number, params: Record<string, string>): Promise<RunResult> {
  const suite = o.suite;
  const runDir = join(o.out, condition, `run-${repetition}`);
  await mkdir(runDir, { recursive: true });
  const project = await realpath(await mkdtemp(join(tmpdir(), `hel-evals-${suite.name}-`)));
  await cp(join(ROOT, "fixtures", suite.fixture), project, { recursive: true });

  const sim = o.online ? null : await startSimulator({ ...o.sim, policy: o.sim?.policy ?? suite.policy });
  const model = o.online?.model ?? OFFLINE_MODEL;
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.HEL_MODEL;
  if (sim) {
    env.DEEPSEEK_API_KEY = "sim-evals-key";
    env.HEL_BASE_URL = sim.url;
  }

  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const startedAt = new Date();
  const start = performance.now();
  const deadline = start + timeoutMs;
  const processes: ProcessResult[] = [];
  const problems: string[] = [];
  let timedOut = false;
  try {
    for (const plan of suite.plan(condition, params, o.hel)) {
      const recordDir = join(runDir, plan.recordDir);
      await mkdir(recordDir, { recursive: true });
      const args = ["-C", project, "--json", "--record", recordDir, "--model", model, ...(sim ? ["--base-url", sim.url] : []), ...plan.args];
      if (plan.resumePrevious) {
        const previous = processes.at(-1)?.session_id;
        if (!previous) {
          problems.push("no session id from the previous process to resume");
          break;
        }
        args.push("--resume", previous);
      }
      for (const instruction of plan.instructions) if (/[\r\n]/.test(instruction)) throw new Error("an instruction must be one line (stdin feeds one instruction per line)");
      const input = plan.instructions.length > 1 ? plan.instructions.join("\n") + "\n" : "";
      if (plan.instructions.length === 1) args.push("--", plan.instructions[0]!);

      const remaining = deadline - performance.now();
      if (remaining <= 0) {
        timedOut = true;
        break;
      }
      const outcome = await runHelProcess(args, env, input, remaining);
      await writeFile(join(recordDir, "hel.stdout"), outcome.stdout);
      await writeFile(join(recordDir, "hel.stderr"), outcome.stderr);
      const lines = outcome.stdout
        .split("\n")
        .filter((l) => l.trim())
        .flatMap((l) => {
          try {
            const parsed = JsonLineSchema.safeParse(JSON.parse(l));
            return parsed.success ? [parsed.data] : [];
          } catch {
            return [];
          }
        });
      processes.push({
        record_dir: plan.recordDir || ".",
        args: args.map((a) => (a === project ? "<project>" : a === recordDir ? "<record-dir>" : a)),
        exit_code: outcome.code,
        signal: outcome.signal,
        killed: outcome.killed,
        session_id: lines.at(-1)?.session_id ?? null,
        exit_reasons: lines.map((l) => l.exit_reason),
      });
      if (outcome.killed) {
        timedOut = true;
        break;
      }
      if (outcome.code !== 0) {
        problems.push(`hel exited with ${outcome.code ?? outcome.signal}: ${outcome.stderr.trim().split("\n").at(-1) ?? ""}`);
        break;
      }
    }
  } finally {
    await sim?.close();
  }
  const wallMs = performance.now() - start;

  const records: RecordDir[] = [];
  for (const p of processes) records.push(await readRecordDir(join(runDir, p.record_dir)));
  for (const r of records) problems.push(...r.problems.map((p) => `${relative(o.out, r.dir) || "."}: ${p}`));
  const files: Record<string, string | null> = {};
  for (const f of suite.files) files[f] = await readFile(join(project, f), "utf8").catch(() => null);
  const checks: Record<string, CheckOutcome> = {};
  for (const c of suite.checks ?? []) checks[c.id] = await runCheck(project, c);
  if (!o.keepProjects) await rm(project, { recursive: true, force: true });

  const requests: RunRequest[] = records.flatMap((r, i) => r.requests.map((l) => ({ ...l, process: i })));
  const keyRequests: Record<string, KeyFigures | null> = {};
  for (const k of suite.keyRequests) {
    const r = k.pick(requests);
    keyRequests[k.label] = r?.usage
      ? {
          prompt_tokens: r.usage.prompt_tokens,
          prompt_cache_hit_tokens: r.usage.prompt_cache_hit_tokens,
          prompt_cache_miss_tokens: r.usage.prompt_cache_miss_tokens,
          hit_ratio: r.usage.prompt_tokens ? r.usage.prompt_cache_hit_tokens / r.usage.prompt_tokens : 0,
        }
      : null;
  }
  const simulator = sim ? sumRequests(sim.requests) : null;

  const totals = {
    all: sumRequests(requests),
    parent: sumRequests(requests.filter((r) => r.agent === "parent")),
    child: sumRequests(requests.filter((r) => r.agent === "child")),
  };
  if (simulator && JSON.stringify(simulator) !== JSON.stringify(totals.all)) problems.push(`the records (${JSON.stringify(totals.all)}) differ from what the simulator served (${JSON.stringify(simulator)})`);

  const run: RunResult = {
    suite: suite.name,
    condition,
    repetition,
    mode: sim ? "offline" : "online",
    model,
    params,
    started_at: startedAt.toISOString(),
    wall_ms: Math.round(wallMs),
    timed_out: timedOut,
    completed: !timedOut && processes.length === suite.plan(condition, params, o.hel).length && processes.every((p) => p.exit_code === 0),
    processes,
    totals,
    key_requests: keyRequests,
    cost: { peak_prompt_tokens: peakPrompt(requests), usd: offPeakCost(requests, model), fresh_equivalent: freshEquivalent(totals.all) },
    measures: suite.measure?.(requests) ?? {},
    checks,
    judges: runJudges(suite.judges, { records, files, params, checks }),
    simulator,
    problems,
    path: relative(o.out, join(runDir, "run.json")),
  };
  if (timedOut) problems.unshift(`the run hit its ${timeoutMs / 1000} s limit; hel was killed`);
  await writeFile(join(runDir, "run.json"), JSON.stringify(run, null, 2) + "\n");
  return run;
}

interface ProcessOutcome {
  code: number | null;
  signal: string | null;
  killed: boolean;
  stdout: string;
  stderr: string;
}

/** Runs hel to its exit, or kills it when `limitMs` runs out (SIGTERM, then SIGKILL after a grace period). */
function runHelProcess(args: string[], env: NodeJS.ProcessEnv, input: string, limitMs: number): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HEL_BIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let killed = false;
    let forceTimer: NodeJS.Timeout | undefined;
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
    const limit = setTimeout(() => {
      killed = true;
      child.kill("SIGTERM");
      forceTimer = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
    }, limitMs);
    child.on("error", (e) => {
      clearTimeout(limit);
      clearTimeout(forceTimer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(limit);
      clearTimeout(forceTimer);
      resolve({ code, signal, killed, stdout, stderr });
    });
  });
}

/** A suite's check: node with its arguments in the project, without the API key, bounded in time. */
function runCheck(project: string, check: ProjectCheck): Promise<CheckOutcome> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DEEPSEEK_API_KEY;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, check.args, { cwd: project, env, stdio: ["ignore", "pipe", "pipe"], timeout: CHECK_LIMIT_MS });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", (e) => resolve({ code: null, output: e.message }));
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** The tools `--tools` accepts and the long flags, read from the built hel's --help. */
export function readHelOffer(): HelOffer {
  const help = spawnSync(process.execPath, [HEL_BIN, "--help"], { encoding: "utf8", env: { ...process.env, COLUMNS: "400" } }).stdout ?? "";
  const flat = help.replace(/\s+/g, " ");
  // "from a, b, c; none = no tools", or at least the default list.
  const option = /--tools <names>(.*?)(?= --[a-z]|$)/.exec(flat)?.[1] ?? "";
  const list = /from ([\w, ]+?);/.exec(option)?.[1] ?? /default: "([\w,]+)"/.exec(option)?.[1] ?? "";
  return {
    tools: new Set(
      list
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    ),
    flags: new Set([...flat.matchAll(/(?:^| )(--[a-z][a-z-]*)/g)].map((m) => m[1]!)),
  };
}

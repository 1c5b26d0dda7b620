// One `evals run`: checks the options, runs the suite (runner.ts), writes <out>/<suite>/summary.md and
// summary.json beside the runs, and returns the summary. Offline unless a model is named: `--model M`
// means DeepSeek, with the caller's DEEPSEEK_API_KEY.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_TIMEOUT_MS, OFFLINE_MODEL, ROOT, readHelOffer, runSuite } from "./runner.js";
import type { RunResult } from "./results.js";
import type { SimOptions } from "../sim/index.js";
import { SUITES } from "./suites/index.js";
import { renderMarkdown, summarize } from "./summary.js";
import type { Summary } from "./results.js";

export class UsageError extends Error {}

export interface EvalsOptions {
  suite: string;
  /** Default: all of the suite's conditions. */
  conditions?: string[];
  repeat?: number;
  /** Given: online, on DeepSeek with this model. */
  model?: string;
  /** Default: a new directory under the system's temporary directory. */
  out?: string;
  build?: boolean;
  timeoutMs?: number;
  keepProjects?: boolean;
  /** Offline: extra simulator options (tests). */
  sim?: Partial<SimOptions>;
  log?: (line: string) => void;
}

export interface EvalsResult {
  summary: Summary;
  markdown: string;
  /** The suite's output directory: summary.md, summary.json, <condition>/run-<n>/. */
  dir: string;
  runs: RunResult[];
}

export async function runEvals(o: EvalsOptions): Promise<EvalsResult> {
  const suite = SUITES[o.suite];
  if (!suite) throw new UsageError(`unknown suite ${JSON.stringify(o.suite)}; suites: ${Object.keys(SUITES).join(", ")}`);
  const conditions = o.conditions?.length ? o.conditions : Object.keys(suite.conditions);
  const unknown = conditions.filter((c) => !(c in suite.conditions));
  if (unknown.length) throw new UsageError(`suite ${suite.name} has no condition ${unknown.join(", ")}; its conditions: ${Object.keys(suite.conditions).join(", ")}`);
  if (new Set(conditions).size !== conditions.length) throw new UsageError("a condition is listed twice in --conditions");
  const repeat = o.repeat ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1) throw new UsageError("--repeat takes a whole number ≥ 1");
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new UsageError("--timeout takes a positive number of seconds");
  if (o.model !== undefined && !process.env.DEEPSEEK_API_KEY) throw new UsageError(`--model ${o.model} runs online on DeepSeek and needs DEEPSEEK_API_KEY — export it, or leave out --model to run offline`);

  const base = o.out ? resolve(o.out) : await mkdtemp(join(tmpdir(), "hel-evals-"));
  const dir = join(base, suite.name);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new UsageError(`${dir} already holds results — choose another --out`);
  await mkdir(dir, { recursive: true });

  if (o.build) {
    o.log?.("building hel (npm run build)…");
    const built = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: ["ignore", process.stderr, process.stderr] });
    if (built.status !== 0) throw new Error(`npm run build failed (exit ${built.status ?? built.signal})`);
  }

  // A condition this hel cannot run (it lacks a tool or flag the condition needs) is left out, and said so.
  const hel = readHelOffer();
  const skipped = conditions.flatMap((condition) => {
    const reason = suite.unavailable?.(condition, hel) ?? null;
    return reason === null ? [] : [{ condition, reason }];
  });
  for (const s of skipped) o.log?.(`${suite.name} · ${s.condition} · skipped: ${s.reason}`);
  const runnable = conditions.filter((c) => !skipped.some((s) => s.condition === c));
  if (runnable.length === 0) throw new UsageError(`this hel can run none of the conditions asked for (${skipped.map((s) => `${s.condition}: ${s.reason}`).join("; ")})`);

  const online = o.model !== undefined ? { model: o.model } : null;
  const runs = await runSuite({
    suite,
    hel,
    conditions: runnable,
    repeat,
    out: dir,
    online,
    timeoutMs,
    ...(o.sim ? { sim: o.sim } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.keepProjects ? { keepProjects: true } : {}),
  });
  const summary = summarize(suite, runs, { conditions: runnable, skipped, repeat, timeoutMs, mode: online ? "online" : "offline", model: online?.model ?? OFFLINE_MODEL });
  const markdown = renderMarkdown(summary, suite.appendix?.(summary));
  await writeFile(join(dir, "summary.json"), JSON.stringify(summary, null, 2) + "\n");
  await writeFile(join(dir, "summary.md"), markdown);
  return { summary, markdown, dir, runs };
}

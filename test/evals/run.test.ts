// `evals run` end to end, offline: the real entry (out/evals/main.js) runs both suites with --repeat 1,
// driving the real hel CLI against the simulator. Asserts each condition's judges and that every figure
// in the summary is the sum (= mean, with one repetition) over the per-run record files.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { emptyTotals, sumTotals, type UsageTotals as Totals } from "../../src/agent/usage.js";
import { runEvals } from "../../evals/evals.js";
import type { RunResult, Summary } from "../../evals/results.js";
import { tempProject } from "../helpers/temp-project.js";

const ROOT = join(import.meta.dirname, "..", "..");
const EVALS = join(ROOT, "out", "evals", "main.js");

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}
function evals(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Done> {
  const child = spawn(process.execPath, [EVALS, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on("close", (code) => done({ code, stdout, stderr })));
}

const zero = emptyTotals;
const plus = sumTotals;
interface Line {
  agent: "parent" | "child";
  usage: (Totals & { prompt_tokens: number }) | null;
}
const lineTotals = (lines: Line[]): Totals =>
  lines.reduce(
    (t, l) =>
      plus(t, {
        requests: 1,
        prompt_tokens: l.usage?.prompt_tokens ?? 0,
        completion_tokens: l.usage?.completion_tokens ?? 0,
        prompt_cache_hit_tokens: l.usage?.prompt_cache_hit_tokens ?? 0,
        prompt_cache_miss_tokens: l.usage?.prompt_cache_miss_tokens ?? 0,
      }),
    zero(),
  );

/** Everything the record files of one condition add up to, read with plain JSON.parse (not the evals' reader). */
async function recordSums(suiteDir: string, summary: Summary, condition: string) {
  const fromRecordJson = { all: zero(), parent: zero(), child: zero(), requestsField: 0 };
  const lines: Line[] = [];
  let wallMs = 0;
  for (const path of summary.runs.filter((p) => p.startsWith(`${condition}/`))) {
    const run = JSON.parse(await readFile(join(suiteDir, path), "utf8")) as RunResult;
    wallMs += run.wall_ms;
    for (const p of run.processes) {
      const dir = join(suiteDir, condition, `run-${run.repetition}`, p.record_dir);
      const record = JSON.parse(await readFile(join(dir, "record.json"), "utf8")) as { requests: number; usage: { total: Totals; parent: Totals; child: Totals } };
      fromRecordJson.all = plus(fromRecordJson.all, record.usage.total);
      fromRecordJson.parent = plus(fromRecordJson.parent, record.usage.parent);
      fromRecordJson.child = plus(fromRecordJson.child, record.usage.child);
      fromRecordJson.requestsField += record.requests;
      const text = await readFile(join(dir, "raw", "requests.jsonl"), "utf8");
      lines.push(
        ...text
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Line),
      );
    }
  }
  return { fromRecordJson, lines, wallMs };
}

function expectSummaryMatchesRecords(summary: Summary, sums: Awaited<ReturnType<typeof recordSums>>, condition: string): void {
  const row = summary.conditions.find((c) => c.condition === condition)!;
  const all = lineTotals(sums.lines);
  const parent = lineTotals(sums.lines.filter((l) => l.agent === "parent"));
  const child = lineTotals(sums.lines.filter((l) => l.agent === "child"));
  // Summed over raw/requests.jsonl, and the same as record.json's own totals.
  expect(row.totals.all).toEqual(all);
  expect(row.totals.parent).toEqual(parent);
  expect(row.totals.child).toEqual(child);
  expect(row.totals.all).toEqual(sums.fromRecordJson.all);
  expect(row.totals.parent).toEqual(sums.fromRecordJson.parent);
  expect(row.totals.child).toEqual(sums.fromRecordJson.child);
  expect(row.totals.all.requests).toBe(sums.fromRecordJson.requestsField);
  expect(row.totals.wall_ms).toBe(sums.wallMs);
  expect(all.prompt_tokens).toBe(all.prompt_cache_hit_tokens + all.prompt_cache_miss_tokens);
  // Means over the repetitions (one here).
  expect(row.mean).toEqual({
    requests_parent: parent.requests / row.runs,
    requests_child: child.requests / row.runs,
    prompt_tokens: all.prompt_tokens / row.runs,
    prompt_cache_hit_tokens: all.prompt_cache_hit_tokens / row.runs,
    prompt_cache_miss_tokens: all.prompt_cache_miss_tokens / row.runs,
    completion_tokens: all.completion_tokens / row.runs,
    wall_s: sums.wallMs / 1000 / row.runs,
  });
  expect(row.hit_ratio).toBeCloseTo(all.prompt_cache_hit_tokens / all.prompt_tokens, 12);
}

describe("evals run, offline, --repeat 1", () => {
  let out: string;
  let h11: Done;
  let h9: Done;
  let s11: Summary;
  let s9: Summary;
  beforeAll(async () => {
    out = await tempProject();
    // A real key in the environment must not turn the default run online.
    const env = { ...process.env, DEEPSEEK_API_KEY: "sk-must-not-be-used", HEL_BASE_URL: "http://127.0.0.1:9" };
    [h11, h9] = await Promise.all([evals(["run", "h11", "--repeat", "1", "--out", out], env), evals(["run", "h9", "--repeat", "1", "--out", out], env)]);
    s11 = JSON.parse(await readFile(join(out, "h11", "summary.json"), "utf8")) as Summary;
    s9 = JSON.parse(await readFile(join(out, "h9", "summary.json"), "utf8")) as Summary;
  });

  it("both suites exit 0, print the Markdown summary and say they ran offline", async () => {
    expect(h11.code, h11.stderr).toBe(0);
    expect(h9.code, h9.stderr).toBe(0);
    for (const [done, summary, name] of [
      [h11, s11, "h11"],
      [h9, s9, "h9"],
    ] as const) {
      expect(summary.mode).toBe("offline");
      expect(summary.simulator_policy).toBe(name);
      expect(summary.problems).toEqual([]);
      expect(done.stdout).toMatch(/^# .*\n\nOffline: hel's bundled DeepSeek simulator played the model/);
      expect(done.stdout).toContain("## Per-request cache");
      expect(await readFile(join(out, name, "summary.md"), "utf8")).toBe(done.stdout);
      expect(done.stderr).toContain(`results: ${join(out, name)}`);
    }
  });

  it("h11: every delegate variant passes all three judges; baseline edits the file itself and fails only the flow", () => {
    expect(s11.conditions.map((c) => c.condition)).toEqual(["baseline", "variant-full", "variant-no-tools", "variant-task-only"]);
    for (const row of s11.conditions) {
      expect(row.runs).toBe(1);
      expect(row.completed).toBe(1);
      const flow = row.condition === "baseline" ? 0 : 1;
      expect(row.passed, row.condition).toEqual({ file: 1, answer: 1, flow });
      expect(row.totals.child.requests > 0).toBe(row.condition !== "baseline");
    }
    expect(s11.failures).toEqual([{ condition: "baseline", repetition: 1, judge: "flow", detail: "the parent called delegate_task 0 times, expected once" }]);
  });

  it("h9: continuous and resume remember the identifier; restart, the control, does not", () => {
    expect(s9.conditions.map((c) => [c.condition, c.passed.answer, c.completed])).toEqual([
      ["continuous", 1, 1],
      ["restart", 0, 1],
      ["resume", 1, 1],
    ]);
    expect(s9.failures).toHaveLength(1);
    expect(s9.failures[0]).toMatchObject({ condition: "restart", judge: "answer", detail: expect.stringMatching(/^answered "I don't know" without [a-z]+-\d{4}-[0-9a-f]{12}$/) });
  });

  it("the summary's numbers equal the sums over each run's record.json and raw/requests.jsonl", async () => {
    for (const [summary, suite] of [
      [s11, "h11"],
      [s9, "h9"],
    ] as const)
      for (const row of summary.conditions) expectSummaryMatchesRecords(summary, await recordSums(join(out, suite), summary, row.condition), row.condition);
  });

  it("each run keeps its record files (h9's two-process runs one directory per process) and what the simulator served matches them", async () => {
    for (const condition of ["baseline", "variant-full"]) {
      const dir = join(out, "h11", condition, "run-1");
      for (const f of ["run.json", "record.json", "raw/requests.jsonl", "raw/delegations.jsonl", "hel.stdout", "hel.stderr"]) expect(existsSync(join(dir, f)), f).toBe(true);
    }
    for (const condition of ["restart", "resume"]) for (const p of ["first", "second"]) expect(existsSync(join(out, "h9", condition, "run-1", p, "record.json"))).toBe(true);
    const resume = JSON.parse(await readFile(join(out, "h9", "resume", "run-1", "run.json"), "utf8")) as RunResult;
    expect(resume.processes[1]!.args).toContain("--resume");
    expect(resume.processes[1]!.session_id).toBe(resume.processes[0]!.session_id);
    expect(resume.processes[1]!.args).toEqual(expect.arrayContaining(["--tools", "none"]));
    const restart = JSON.parse(await readFile(join(out, "h9", "restart", "run-1", "run.json"), "utf8")) as RunResult;
    expect(restart.processes[1]!.session_id).not.toBe(restart.processes[0]!.session_id);
    // One repetition: every condition of it got the same identifier.
    expect(new Set([resume.params.identifier, restart.params.identifier]).size).toBe(1);
    for (const s of [s11, s9])
      for (const path of s.runs) {
        const run = JSON.parse(await readFile(join(out, s.suite, path), "utf8")) as RunResult;
        expect(run.simulator).toEqual(run.totals.all);
      }
  });

  it("the per-request cache table is the child's first request and the parent's requests around the delegation", async () => {
    const lines = (await readFile(join(out, "h11", "variant-full", "run-1", "raw", "requests.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Line);
    const firstChild = lines.findIndex((l) => l.agent === "child");
    const figures = (l: Line) => ({
      prompt_tokens: l.usage!.prompt_tokens,
      prompt_cache_hit_tokens: l.usage!.prompt_cache_hit_tokens,
      prompt_cache_miss_tokens: l.usage!.prompt_cache_miss_tokens,
      hit_ratio: l.usage!.prompt_cache_hit_tokens / l.usage!.prompt_tokens,
    });
    const rows = s11.key_requests.filter((k) => k.condition === "variant-full");
    expect(rows.map((r) => r.label)).toEqual(["parent, delegating request", "child, first request", "parent, first after delegation"]);
    expect(rows[0]!.per_run).toEqual([figures(lines[firstChild - 1]!)]);
    expect(rows[1]!.per_run).toEqual([figures(lines[firstChild]!)]);
    expect(rows[2]!.per_run).toEqual([figures(lines.slice(firstChild).find((l) => l.agent === "parent")!)]);
    expect(lines[firstChild - 1]!.agent).toBe("parent");
    // The full child starts on the parent's prefix: most of its first request is a cache hit.
    expect(rows[1]!.hit_ratio!).toBeGreaterThan(0.8);
    expect(s11.key_requests.filter((k) => k.condition === "baseline").every((k) => k.runs === 0 && k.mean === null)).toBe(true);
  });
});

describe("evals run, repetitions and limits", () => {
  it("--repeat 2: a new identifier per repetition, shared by its conditions; the summary holds means", async () => {
    const out = await tempProject();
    const { summary, runs } = await runEvals({ suite: "h9", conditions: ["continuous", "resume"], repeat: 2, out });
    const ids = runs.map((r) => `${r.repetition}:${r.params.identifier}`);
    expect(new Set(ids).size).toBe(2);
    expect(runs[0]!.params.identifier).toBe(runs[1]!.params.identifier);
    expect(runs[0]!.params.identifier).not.toBe(runs[2]!.params.identifier);
    for (const row of summary.conditions) {
      expect(row.runs).toBe(2);
      expect(row.passed.answer).toBe(2);
      const mine = runs.filter((r) => r.condition === row.condition);
      expect(row.mean.prompt_tokens).toBe((mine[0]!.totals.all.prompt_tokens + mine[1]!.totals.all.prompt_tokens) / 2);
      expect(row.mean.requests_parent).toBe(2);
    }
  });

  it("a run over its time limit is killed, makes no further requests, and fails its judges", async () => {
    const out = await tempProject();
    // The first answer takes 30 s; the run's limit is 1.5 s.
    const { summary, runs } = await runEvals({
      suite: "h9",
      conditions: ["resume"],
      out,
      timeoutMs: 1500,
      sim: { script: [{ faults: [{ kind: "delay", ms: 30_000 }], reply: { content: "OK" } }] },
    });
    const run = runs[0]!;
    expect(run.timed_out).toBe(true);
    expect(run.completed).toBe(false);
    expect(run.wall_ms).toBeLessThan(6000);
    expect(run.processes).toHaveLength(1); // the second process never started
    expect(run.processes[0]!.killed).toBe(true);
    expect(run.simulator!.requests).toBe(1);
    expect(run.judges.answer!.pass).toBe(false);
    expect(summary.conditions[0]).toMatchObject({ runs: 1, completed: 0, timed_out: 1, passed: { answer: 0 } });
    expect(summary.problems[0]!.problem).toMatch(/hit its 1\.5 s limit/);
  });
});

describe("evals command line", () => {
  it("--help lists the suites and their conditions", async () => {
    const top = await evals(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/h11 .*\n.*baseline[\s\S]*variant-task-only[\s\S]*h9 [\s\S]*resume/);
    const run = await evals(["run", "--help"]);
    expect(run.code).toBe(0);
    for (const flag of ["--conditions", "--repeat", "--model", "--out", "--build", "--timeout"]) expect(run.stdout).toContain(flag);
  });

  it("usage errors exit 2 with one line: unknown suite or condition, --model without a key", async () => {
    const noKey = { ...process.env };
    delete noKey.DEEPSEEK_API_KEY;
    const cases: [string[], RegExp][] = [
      [["run", "h10"], /unknown suite "h10"; suites: h11, h9/],
      [["run", "h11", "--conditions", "variant-half"], /suite h11 has no condition variant-half/],
      [["run", "h9", "--model", "deepseek-flash"], /needs DEEPSEEK_API_KEY/],
      [["run", "h9", "--repeat", "0"], /--repeat takes a whole number/],
    ];
    const results = await Promise.all(cases.map(([args]) => evals(args, noKey)));
    for (const [i, [args, message]] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
    }
  });
});

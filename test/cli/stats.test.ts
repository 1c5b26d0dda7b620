// `hel stats` end to end, in this process as the command runs it: a run's requests (its subagent's
// too), as the simulator answered them, are what stats sums; the table and --json over sessions the
// test wrote; --days counted back from today; bad usage.
import { mkdir, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { forkSession } from "../../src/session/fork.js";
import { sessionPaths } from "../../src/session/paths.js";
import { StatsReportSchema } from "../../src/session/request-stats.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { writeSnapshotHeader } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const DAY_MS = 24 * 60 * 60 * 1000;

const writeSession = (project: string, id: string, requests: object[]) => writeSnapshotHeader(project, id, { session_id: id, requests });

const record = (at: Date, model: string, prompt: number, hit: number, output: number) => ({
  agent: "parent",
  model,
  at: at.toISOString(),
  prompt_tokens: prompt,
  prompt_cache_hit_tokens: hit,
  prompt_cache_miss_tokens: prompt - hit,
  completion_tokens: output,
  cost_usd: null,
});

describe("hel stats", () => {
  it("sums the requests a run made, its subagent's included, as the simulator reported them", async () => {
    sim = await startSimulator({
      script: [{ tool_calls: [{ name: "delegate_task", arguments: JSON.stringify({ task: "Say which files exist." }) }] }, { content: "Only README.md." }, { content: "There is only README.md." }],
    });
    const project = await tempProject();
    const run = await runHelInProcess({ args: ["-C", project, "--delegate", "task-only", "--json", "list the files"], baseUrl: sim.url });
    expect(run.code).toBe(0);

    const answered = sim.requests.map((r) => r.usage!);

    const stats = await runHelInProcess({ args: ["-C", project, "stats", "--json"] });
    expect(stats.code).toBe(0);
    const report = StatsReportSchema.parse(JSON.parse(stats.stdout));
    const sum = (k: "prompt_tokens" | "completion_tokens" | "prompt_cache_hit_tokens") => answered.reduce((s, u) => s + u[k], 0);
    expect(report.total).toMatchObject({ requests: 3, prompt_tokens: sum("prompt_tokens"), completion_tokens: sum("completion_tokens"), prompt_cache_hit_tokens: sum("prompt_cache_hit_tokens") });
    expect(report.by_model.map((m) => m.model)).toEqual(["deepseek-flash"]);
    expect(report.sessions).toBe(1);

    // A fork's conversation is the original's, but not its requests: they are counted once.
    await forkSession(project, JSON.parse(run.stdout).session_id);
    const afterFork = StatsReportSchema.parse(JSON.parse((await runHelInProcess({ args: ["-C", project, "stats", "--json"] })).stdout));
    expect(afterFork).toMatchObject({ sessions: 1, unrecorded_sessions: 0, total: { requests: 3 } });
  });

  it("prints a row per day and model, the models over the window and the total; --days leaves out older days", async () => {
    const project = await tempProject();
    const now = new Date();
    const old = new Date(now.getTime() - 40 * DAY_MS);
    await writeSession(project, "a", [record(now, "deepseek-flash", 1000, 750, 100), record(now, "deepseek-v4-pro", 3000, 0, 200)]);
    await writeSession(project, "b", [record(old, "deepseek-flash", 5000, 0, 0)]);
    await mkdir(sessionPaths(project, "c").dir);
    await writeFile(sessionPaths(project, "c").snapshot, "{}");

    const all = await runHelInProcess({ args: ["-C", project, "stats"] });
    expect(all.code).toBe(0);
    const lines = all.stdout.split("\n");
    expect(lines[0]).toMatch(/^2 sessions over every recorded day; dollars are estimates at DeepSeek's prices \(peak hours cost ×2: Mon Tue Wed Thu Fri, 01:00–04:00 and 06:00–10:00 UTC\)$/);
    const today = now.toISOString().slice(0, 10);
    const row = (day: string, model: string) => lines.find((l) => l.startsWith(day) && l.includes(` ${model} `))?.split(/\s{2,}/);
    expect(row(today, "deepseek-flash")?.slice(2, 6)).toEqual(["1", "1,000", "75%", "100"]);
    expect(row(today, "all models")?.slice(2, 6)).toEqual(["2", "4,000", "19%", "300"]);
    expect(row("all days", "deepseek-flash")?.slice(2, 6)).toEqual(["2", "6,000", "13%", "100"]);
    expect(row("all days", "all models")?.slice(2, 6)).toEqual(["3", "9,000", "8%", "300"]);
    expect(all.stdout).toContain("1 session that keeps no record of its requests (saved by an older hel, or unreadable) is not counted");

    const month = StatsReportSchema.parse(JSON.parse((await runHelInProcess({ args: ["-C", project, "stats", "--days", "30", "--json"] })).stdout));
    expect(month).toMatchObject({ days: 30, sessions: 1, unrecorded_sessions: 1, total: { requests: 2, prompt_tokens: 4000 } });
    expect(month.by_day.map((d) => d.day)).toEqual([today]);
  });

  it("says so when there is nothing to count, and refuses a --days that is not a count of days", async () => {
    const project = await tempProject();
    const none = await runHelInProcess({ args: ["-C", project, "stats", "--days", "7"] });
    expect(none.stdout).toMatch(/^no requests in the last 7 days \(since \d{4}-\d\d-\d\d\)/);
    for (const days of ["0", "-1", "2.5", "week"]) {
      const bad = await runHelInProcess({ args: ["-C", project, "stats", "--days", days] });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`hel: --days takes a number of days from 1, not "${days}"`);
    }
  });
});

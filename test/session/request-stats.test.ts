// `hel stats`'s figures from requests the test made: UTC day boundaries, DeepSeek's peak and off-peak
// hours at the built-in prices (dollars worked out by hand below), two models and one without a price,
// --days counting back from today, and the requests the project's snapshots keep, read from their
// first lines as untrusted data.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES } from "../../src/model/prices.js";
import { sessionPaths } from "../../src/session/paths.js";
import { projectRequests } from "../../src/session/project-requests.js";
import { requestStats, type Figures } from "../../src/session/request-stats.js";
import { tempProject } from "../helpers/temp-project.js";
import { writeSnapshotHeader } from "../helpers/session-fixtures.js";

type Usage = { prompt_tokens: number; completion_tokens: number; prompt_cache_hit_tokens: number; prompt_cache_miss_tokens: number; estimated?: true };
type RequestRecord = Usage & { at: string; model: string };
const usage = (prompt: number, hit: number, output: number): Usage => ({ prompt_tokens: prompt, completion_tokens: output, prompt_cache_hit_tokens: hit, prompt_cache_miss_tokens: prompt - hit });
const record = (at: string, model: string, u: Usage): RequestRecord => ({ at, model, ...u });

// 2026-12-07 is a Monday. Peak: Mon–Fri 01:00–04:00 and 06:00–10:00 UTC, prices ×2.
// deepseek-flash $0.003 hit / $0.15 miss / $0.60 output; deepseek-v4-pro $0.022 / $0.66 / $1.98 per million.
const BIG = usage(1_000_000, 600_000, 100_000); // flash: 0.0018 + 0.06 + 0.06 = $0.1218 off-peak
const CACHED = usage(200_000, 200_000, 10_000); // flash: 0.0006 + 0.006 = $0.0066
const MISS = usage(10_000, 0, 0); // flash: $0.0015
const PRO = usage(100_000, 0, 50_000); // pro: 0.066 + 0.099 = $0.165 off-peak
const TINY = usage(1_000, 0, 10);

const RECORDS = {
  mondayLate: record("2026-11-30T23:59:59.999Z", "deepseek-flash", MISS), // the day before the window
  tuesdayPeak: record("2026-12-01T02:30:00.000Z", "deepseek-flash", BIG), // $0.2436
  tuesdayPeakEnd: record("2026-12-01T04:00:00.000Z", "deepseek-flash", MISS), // 04:00 is off-peak: $0.0015
  tuesdayLast: record("2026-12-01T23:59:59.999Z", "deepseek-flash", CACHED), // $0.0066
  wednesdayFirst: record("2026-12-02T00:00:00.000Z", "deepseek-v4-pro", PRO), // $0.165
  wednesdayPeak: record("2026-12-02T09:59:59.000Z", "deepseek-v4-pro", PRO), // $0.33
  unpriced: record("2026-12-02T03:00:00.000Z", "mystery-model", TINY),
  saturdayMorning: record("2026-12-05T02:00:00.000Z", "deepseek-flash", BIG), // weekend: $0.1218
};

function figures(requests: Usage[], cost: number, extra: Partial<Figures> = {}): Figures {
  const sum = (k: keyof Usage) => requests.reduce((s, u) => s + Number(u[k] ?? 0), 0);
  const prompt = sum("prompt_tokens");
  return {
    requests: requests.length,
    prompt_tokens: prompt,
    prompt_cache_hit_tokens: sum("prompt_cache_hit_tokens"),
    prompt_cache_miss_tokens: sum("prompt_cache_miss_tokens"),
    completion_tokens: sum("completion_tokens"),
    cache_hit_share: prompt === 0 ? 0 : sum("prompt_cache_hit_tokens") / prompt,
    cost_usd: expect.closeTo(cost, 9) as unknown as number,
    unpriced_requests: 0,
    estimated_requests: 0,
    ...extra,
  };
}

const NOW = new Date("2026-12-07T12:00:00Z");

describe("requestStats", () => {
  const all = Object.values(RECORDS);
  const stats = (days: number | null, sessions = [{ records: all, skipped: 0 }]) => requestStats({ sessions, unrecordedSessions: 0, table: DEFAULT_PRICES, days, now: NOW });

  it("puts each request on its UTC day, and splits each day's dollars into peak and off-peak hours at DeepSeek's prices", () => {
    const report = stats(null);
    expect(report.by_day.map((d) => d.day)).toEqual(["2026-11-30", "2026-12-01", "2026-12-02", "2026-12-05"]);
    const tuesday = report.by_day[1]!;
    expect(tuesday.models).toEqual([
      {
        model: "deepseek-flash",
        ...figures([BIG, MISS, CACHED], 0.2436 + 0.0015 + 0.0066),
        peak: figures([BIG], 0.2436),
        off_peak: figures([MISS, CACHED], 0.0015 + 0.0066),
      },
    ]);
    const saturday = report.by_day[3]!;
    expect(saturday.peak.requests).toBe(0);
    expect(saturday.off_peak).toEqual(figures([BIG], 0.1218));
  });

  it("keeps two models apart on a day and over the window, and counts a model without a price as unpriced", () => {
    const wednesday = stats(null).by_day[2]!;
    expect(wednesday.models.map((m) => m.model)).toEqual(["deepseek-v4-pro", "mystery-model"]);
    expect(wednesday.models[0]).toEqual({ model: "deepseek-v4-pro", ...figures([PRO, PRO], 0.495), peak: figures([PRO], 0.33), off_peak: figures([PRO], 0.165) });
    expect(wednesday.models[1]).toEqual({
      model: "mystery-model",
      ...figures([TINY], 0, { unpriced_requests: 1 }),
      peak: figures([TINY], 0, { unpriced_requests: 1 }),
      off_peak: figures([], 0),
    });
    const byModel = stats(null).by_model;
    expect(byModel.map((m) => [m.model, m.requests])).toEqual([
      ["deepseek-flash", 5],
      ["deepseek-v4-pro", 2],
      ["mystery-model", 1],
    ]);
    expect(byModel[0]!.cost_usd).toBeCloseTo(0.0015 + 0.2436 + 0.0015 + 0.0066 + 0.1218, 9);
  });

  it("with days, counts from the start of the UTC day days-1 before today: the last millisecond before it is out", () => {
    const week = stats(7);
    expect(week.from).toBe("2026-12-01");
    expect(week.by_day.map((d) => d.day)).toEqual(["2026-12-01", "2026-12-02", "2026-12-05"]);
    expect(week.total).toEqual({
      ...figures([BIG, MISS, CACHED, PRO, PRO, TINY, BIG], 0.2436 + 0.0015 + 0.0066 + 0.495 + 0.1218, { unpriced_requests: 1 }),
      peak: figures([BIG, PRO, TINY], 0.2436 + 0.33, { unpriced_requests: 1 }),
      off_peak: figures([MISS, CACHED, PRO, BIG], 0.0015 + 0.0066 + 0.165 + 0.1218),
    });
    expect(stats(1).total.requests).toBe(0);
    expect(stats(2).by_day.map((d) => d.day)).toEqual([]);
    expect(stats(3).by_day.map((d) => d.day)).toEqual(["2026-12-05"]);
  });

  it("counts the sessions with a request in the window, the lines skipped, and estimated requests", () => {
    const estimated = record("2026-12-06T12:00:00.000Z", "deepseek-flash", { ...MISS, estimated: true });
    const report = stats(7, [
      { records: [RECORDS.mondayLate], skipped: 2 },
      { records: [RECORDS.tuesdayPeak, estimated], skipped: 0 },
    ]);
    expect(report).toMatchObject({ sessions: 1, skipped_requests: 2, total: { requests: 2, estimated_requests: 1 } });
  });
});

describe("the requests the project's snapshots keep", () => {
  // As a session keeps them (agent/usage.ts RequestUsageSchema): who sent each and what it cost then, which stats does not read.
  const kept = (r: RequestRecord) => ({ agent: "parent", ...r, cost_usd: null });

  it("are read from each snapshot's first line, a record that is not one skipped, a session without them counted as unrecorded", async () => {
    const project = await tempProject();
    await writeSnapshotHeader(project, "kept", { updated_at: RECORDS.tuesdayPeak.at, requests: [kept(RECORDS.tuesdayPeak), { at: "yesterday" }, "not a request", kept(RECORDS.unpriced)] });
    await writeSnapshotHeader(project, "old", { updated_at: RECORDS.tuesdayPeak.at });
    await mkdir(sessionPaths(project, "other-layout").dir);
    await writeFile(sessionPaths(project, "other-layout").snapshot, JSON.stringify({ requests: [kept(RECORDS.tuesdayPeak)], messages: [] }));
    // Never saved: no snapshot. Not a session that left anything out.
    await mkdir(sessionPaths(project, "empty").dir);

    expect(await projectRequests(project)).toEqual({ sessions: [{ records: [kept(RECORDS.tuesdayPeak), kept(RECORDS.unpriced)], skipped: 2 }], unrecorded: 2 });
  });

  it("are not read through a link: a linked session directory or snapshot is counted as unrecorded", async () => {
    const project = await tempProject();
    const elsewhere = await tempProject();
    await writeSnapshotHeader(elsewhere, "planted", { requests: [kept(RECORDS.saturdayMorning)] });
    await mkdir(sessionPaths(project, "x").dir, { recursive: true });
    await symlink(sessionPaths(elsewhere, "planted").dir, sessionPaths(project, "linked").dir);
    await symlink(sessionPaths(elsewhere, "planted").snapshot, sessionPaths(project, "x").snapshot);
    expect(await projectRequests(project)).toEqual({ sessions: [], unrecorded: 2 });
  });
});

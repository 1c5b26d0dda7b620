// `hel stats` over a thousand sessions. Contract: writes 1,000 saved sessions into a temporary project
// (each a snapshot whose first line is a header as hel writes one, with forty requests on two models
// across thirty days, followed by messages stats must not read), runs the built `hel stats --json` on
// it in fresh processes, and checks that each run counted every request; the project is deleted
// afterwards. Reported: the wall time, CPU time and peak RSS of those processes.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HEL_BIN } from "../scripts/hel-bin.js";
import { rng } from "./history.js";
import { runChild } from "./procs.js";

export interface UsageStatsResult {
  sessions: number;
  requests: number;
  /** Bytes on disk of all the snapshots, messages included. */
  bytes: number;
  wallMs: number[];
  cpuMs: number[];
  peakRssMb: number[];
}

const SESSIONS = 1_000;
const REQUESTS_EACH = 40;
const MESSAGES_EACH = 80;
const DAY_MS = 24 * 60 * 60 * 1000;

/** One saved session's bytes: the header line (messages_index and requests in it), then its messages. */
function snapshotText(id: string, cwd: string, random: () => number, now: number): string {
  const requests = Array.from({ length: REQUESTS_EACH }, (_, i) => {
    const prompt = 2_000 + Math.floor(random() * 60_000);
    const hit = Math.floor(prompt * random());
    return {
      agent: i % 7 === 3 ? "child" : "parent",
      ...(i % 7 === 3 ? { delegation: 1 } : {}),
      model: random() < 0.8 ? "deepseek-flash" : "deepseek-v4-pro",
      at: new Date(now - Math.floor(random() * 30 * DAY_MS)).toISOString(),
      prompt_tokens: prompt,
      prompt_cache_hit_tokens: hit,
      prompt_cache_miss_tokens: prompt - hit,
      completion_tokens: Math.floor(random() * 4_000),
      cost_usd: 0.001,
    };
  });
  const messages = Array.from({ length: MESSAGES_EACH }, (_, i) => JSON.stringify({ role: i % 2 === 0 ? "user" : "assistant", content: `[#${i + 1}] ${"x".repeat(1_500)}` }));
  const header = {
    schema_version: 2,
    session_id: id,
    cwd,
    created_at: new Date(now - 30 * DAY_MS).toISOString(),
    updated_at: new Date(now).toISOString(),
    usage: { requests: REQUESTS_EACH, prompt_tokens: 0, completion_tokens: 0, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 0 },
    requests,
    messages_index: { crc32: 0, entries: messages.map((_, i) => (i % 2 === 0 ? "u" : "a")) },
    mac: "0".repeat(64),
  };
  return `${JSON.stringify(header).slice(0, -1)},"messages":[\n${messages.join(",\n")}\n]}\n`;
}

export async function measureUsageStats(options: { reps: number; log: (line: string) => void }): Promise<UsageStatsResult> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "hel-bench-stats-")));
  try {
    const random = rng(46);
    const now = Date.now();
    let bytes = 0;
    options.log(`stats: writing ${SESSIONS} sessions`);
    for (let i = 0; i < SESSIONS; i++) {
      const id = `bench-${String(i).padStart(4, "0")}`;
      const sessionDir = join(dir, ".hel", "sessions", id);
      await mkdir(sessionDir, { recursive: true });
      const text = snapshotText(id, dir, random, now);
      bytes += Buffer.byteLength(text);
      await writeFile(join(sessionDir, "snapshot.json"), text);
    }
    const result: UsageStatsResult = { sessions: SESSIONS, requests: SESSIONS * REQUESTS_EACH, bytes, wallMs: [], cpuMs: [], peakRssMb: [] };
    // One unmeasured run first: the files' pages come into the cache as they would for a user's project.
    for (let rep = -1; rep < options.reps; rep++) {
      const run = await runChild(process.execPath, [HEL_BIN, "-C", dir, "stats", "--json"], { resources: true });
      if (run.code !== 0) throw new Error(`hel stats failed (exit ${run.code}): ${run.stderr.trim()}`);
      const counted = (JSON.parse(run.stdout) as { total: { requests: number } }).total.requests;
      if (counted !== result.requests) throw new Error(`hel stats counted ${counted} requests of ${result.requests}`);
      if (rep < 0) continue;
      result.wallMs.push(run.wallMs);
      if (run.cpuMs !== null) result.cpuMs.push(run.cpuMs);
      if (run.peakRssMb !== null) result.peakRssMb.push(run.peakRssMb);
    }
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

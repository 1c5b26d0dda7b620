// kill -9 at moments spread over runs that fold on every instruction leaves temporary files and archive
// files no snapshot names; the next save of each session removes them, and keeps every file its
// snapshot names.
import { existsSync } from "node:fs";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { loadSnapshot } from "../../src/session/snapshot-file.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { ageLocks, killRuns } from "../helpers/kill-runs.js";
import { tempProject } from "../helpers/temp-project.js";

const RUNS = 24;
const LINES = Array.from({ length: 40 }, (_, i) => `step ${i + 1}: look at a.log`);
const ARGS = ["--tools", "read_file,fold", "--effort", "none"];

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ policy: "episode" });
});
afterAll(async () => sim.close());

// Kills land a few requests into a run, at moments spread over a millisecond range, so some fall
// inside a save: after the archive file was written and before the snapshot named it, or mid-write.
const moments = Array.from({ length: RUNS }, (_, i) => ({ afterRequests: 3 + (i % 6), extraMs: i % 12 }));

/** The files of one session that no snapshot accounts for: temporary files, and archives the index does not name. */
async function leftovers(project: string, id: string): Promise<string[]> {
  const dir = join(project, ".hel", "sessions", id);
  const named = new Set((await loadSnapshot(project, id)).archive.map((e) => `${e.handle}.json`));
  const found: string[] = [];
  for (const sub of ["", "children", "archive", "spill"]) {
    for (const name of existsSync(join(dir, sub)) ? await readdir(join(dir, sub)) : []) {
      if (name.endsWith(".tmp") || (sub === "archive" && !named.has(name))) found.push(join(sub, name));
    }
  }
  return found;
}

it(`what ${RUNS} kill -9s left beside their sessions is gone after each session's next save`, { timeout: 300_000 }, async () => {
  const project = await tempProject();
  await writeFile(join(project, "a.log"), "error: the cache is stale\n");
  await killRuns(sim, ["-C", project, ...ARGS], LINES, moments);
  // A killed holder's lease is taken over once it is stale.
  await ageLocks(project);
  const sessions = join(project, ".hel", "sessions");
  const saved = (await readdir(sessions)).filter((id) => existsSync(join(sessions, id, "snapshot.json")));
  let left = 0;
  for (const id of saved) {
    left += (await leftovers(project, id)).length;
    const result = await runHelInProcess({ args: ["-C", project, "--resume", id, ...ARGS, "step 41: look at a.log"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(await leftovers(project, id)).toEqual([]);
    // Every archive the index names is still there.
    for (const entry of (await loadSnapshot(project, id)).archive) expect(existsSync(join(sessions, id, "archive", `${entry.handle}.json`))).toBe(true);
  }
  // For the test to mean anything, some kills must have left something behind.
  expect(left).toBeGreaterThan(0);
});

// kill -9 at moments spread over a run that folds on every instruction: whatever snapshot is left
// names only archive files that are on disk and read back, since each span's file is written before
// the snapshot that refers to it.
import { existsSync } from "node:fs";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { loadSnapshot } from "../../src/session/snapshot-file.js";
import { archiveStore } from "../../src/session/archive-store.js";
import { killRuns } from "../helpers/kill-runs.js";
import { tempProject } from "../helpers/temp-project.js";

const RUNS = 16;
const LINES = Array.from({ length: 40 }, (_, i) => `step ${i + 1}: look at a.log`);

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ policy: "episode" });
});
afterAll(async () => sim.close());

// Each kill lands after a given number of requests plus a few milliseconds: before the first fold,
// between a fold and the save, mid-save, between turns.
const moments = Array.from({ length: RUNS }, (_, i) => ({ afterRequests: 2 + (i % 8), extraMs: (i * 5) % 17 }));

it(`every snapshot left by ${RUNS} kill -9s names only archive files that are on disk`, { timeout: 240_000 }, async () => {
  const project = await tempProject();
  await writeFile(join(project, "a.log"), "error: the cache is stale\n");
  let withArchive = 0;
  await killRuns(sim, ["-C", project, "--tools", "read_file,fold", "--effort", "none"], LINES, moments);
  const sessions = join(project, ".hel", "sessions");
  for (const id of existsSync(sessions) ? await readdir(sessions) : []) {
    if (!existsSync(join(sessions, id, "snapshot.json"))) continue;
    const snapshot = await loadSnapshot(project, id);
    for (const entry of snapshot.archive) {
      const read = await archiveStore(project, id).read(entry);
      expect(read.ok ? { ...entry, handle: read.file.handle } : read.error).toEqual(entry);
    }
    if (snapshot.archive.length > 0) withArchive++;
  }
  // For the test to mean anything, some kills must have come after a fold was saved.
  expect(withArchive).toBeGreaterThan(RUNS / 4);
});

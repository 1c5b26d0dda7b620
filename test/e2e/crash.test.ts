// kill -9 at random moments of a long stdin run, 50 times: every snapshot left on disk must load
// and be one of the states that was saved — the conversation after some whole number of answers.
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { loadSnapshot } from "../../src/session/snapshot-file.js";
import { killRuns } from "../helpers/kill-runs.js";
import { tempProject } from "../helpers/temp-project.js";

const RUNS = 50;
const LINES = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`);

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ policy: "echo" });
});
afterAll(async () => sim.close());

// Each kill lands after a given number of the run's requests plus a few milliseconds, so it falls
// at a different moment of the answer/save cycle each time however loaded the machine is:
// before the first answer, mid-save, between turns. Deterministic: no flaky seeds.
const moments = Array.from({ length: RUNS }, (_, i) => ({ afterRequests: i % 10, extraMs: (i * 7) % 23 }));

it(`every snapshot left by ${RUNS} kill -9s loads and equals a saved state`, { timeout: 240_000 }, async () => {
  const project = await tempProject();
  let withSnapshot = 0;
  let longest = 0;
  await killRuns(sim, ["-C", project, "--tools", "none", "--effort", "none"], LINES, moments);
  const sessions = join(project, ".hel", "sessions");
  for (const id of existsSync(sessions) ? await readdir(sessions) : []) {
    if (!existsSync(join(sessions, id, "snapshot.json"))) continue;
    const snapshot = await loadSnapshot(project, id);
    const turns = (snapshot.messages.length - 1) / 2;
    expect(Number.isInteger(turns)).toBe(true);
    expect(snapshot.messages.slice(1)).toEqual(
      LINES.slice(0, turns).flatMap((line, i) => [
        { role: "user", content: `[#${i + 1}] ${line}` },
        { role: "assistant", content: `echo: ${line}` },
      ]),
    );
    expect(snapshot.meter.message_count).toBe(snapshot.messages.length - 1);
    // No temporary file of an interrupted save is left looking like a snapshot.
    expect((await readdir(join(sessions, id))).filter((f) => f.startsWith("snapshot.json") && f !== "snapshot.json").length).toBeLessThanOrEqual(1);
    withSnapshot++;
    longest = Math.max(longest, turns);
  }
  // The kills must have landed both before and after saves for the test to mean anything: a tenth of
  // them come before the first request, and on a loaded machine more before the first save.
  expect(withSnapshot).toBeGreaterThanOrEqual(RUNS / 2);
  expect(withSnapshot).toBeLessThan(RUNS);
  expect(longest).toBeGreaterThan(1);
});

// Auto-fold and kill -9, through the built CLI against the simulator: a kill -9 while the note is being
// asked for leaves the last turn's snapshot whole, and a resume goes on from it. The rest of auto-fold
// runs in this process, in test/cli/auto-fold.test.ts.
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { Simulator } from "../../sim/index.js";
import type { Policy } from "../../sim/types.js";
import { collect, runHel, startHel } from "../helpers/hel.js";
import { waitFor } from "../helpers/wait.js";
import { simulators } from "../helpers/simulators.js";
import { ARGS, bodies, buildLoopProject, isNoteRequest, passingBuild, steady } from "../helpers/build-loop-runs.js";

const startSim = simulators();
const sim = (policy: Policy = steady) => startSim({ policy });
const project = buildLoopProject;

it("a kill -9 while the note is asked for loses nothing that was saved: the snapshot is the last turn's, naming no archive file", async () => {
  const dir = await project();
  let s: Simulator | null = null;
  // The note request is held until hel is killed.
  let held = false;
  s = await sim((req, ctx) => {
    if (passingBuild(req) && !held) {
      held = true;
      s!.push({ faults: [{ kind: "delay", ms: 20_000 }] });
    }
    return steady(req, ctx);
  });
  const child = startHel({ args: ["-C", dir, ...ARGS], baseUrl: s.url });
  const done = collect(child, "step 0\nmake the build pass\n");
  await waitFor(() => bodies(s!).some(isNoteRequest), "the note request", { timeoutMs: 30_000 });
  child.kill("SIGKILL");
  const first = await done;
  expect(first.signal).toBe("SIGKILL");
  const sessions = await runHel({ args: ["-C", dir, "sessions", "ls", "--json"], baseUrl: s.url });
  const [listed] = JSON.parse(sessions.stdout) as { id: string }[];
  const snapshot = JSON.parse(await readFile(join(dir, ".hel", "sessions", listed!.id, "snapshot.json"), "utf8"));
  // The last save was the first turn's: its messages, and no archive entry without its file.
  expect(snapshot.messages.filter((m: { role: string }) => m.role === "user").map((m: { content: string }) => m.content)).toEqual(["[#1] step 0"]);
  expect(snapshot.archive).toEqual([]);
  // What was saved reads back whole while the killed process's lease is still fresh.
  const shown = await runHel({ args: ["-C", dir, "sessions", "show", listed!.id], baseUrl: s.url });
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain("step 0");
  expect(shown.stdout).not.toContain("archive  ");
  // A resume goes on from there: the dead holder's lease would be taken over once stale
  // (test/session/lease.test.ts); here it is cleared at once. The killed turn's edits are on disk, so
  // the build starts failing again, and the resumed run folds the new episode.
  await rm(join(dir, ".hel", "sessions", listed!.id, ".active"), { recursive: true, force: true });
  await writeFile(join(dir, "build.cfg"), "level=0\n");
  const s2 = await sim();
  const resumed = await runHel({ args: ["-C", dir, ...ARGS, "--resume", listed!.id, "make the build pass"], baseUrl: s2.url });
  expect(resumed.code).toBe(0);
  const firstAfter = bodies(s2)[0]!;
  expect(firstAfter.messages.slice(0, snapshot.messages.length).map((m) => m.content)).toEqual(snapshot.messages.map((m: { content: string }) => m.content));
  expect(bodies(s2).filter(isNoteRequest)).toHaveLength(1);
  const after = JSON.parse(await readFile(join(dir, ".hel", "sessions", listed!.id, "snapshot.json"), "utf8"));
  expect(after.archive).toHaveLength(1);
  expect(await readFile(join(dir, ".hel", "sessions", listed!.id, "archive", `${after.archive[0].handle}.json`), "utf8")).toContain("sh build.sh");
});

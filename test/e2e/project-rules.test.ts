// A FIFO for the project's rules file does not hang hel: it is skipped with one warning, and the
// request carries no rules. The built CLI against the simulator, as its own process, so that a run that
// hangs is killed and the test fails instead of waiting (the other rules files are
// test/cli/project-rules.test.ts's).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { collect, startHel } from "../helpers/hel.js";
import { expectedSystem, NOT_USED, sentSystem, warnings } from "../helpers/rules-runs.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

it("a FIFO HEL.md does not hang hel: it is skipped", async () => {
  const project = await tempProject();
  execFileSync("mkfifo", [join(project, "HEL.md")]);
  sim = await startSimulator({ script: [{ content: "ok" }] });
  const child = startHel({ args: ["-C", project, "hi"], baseUrl: sim.url });
  const watchdog = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const result = await collect(child).finally(() => clearTimeout(watchdog));
  expect(result.signal).toBeNull();
  expect(result.code).toBe(0);
  const system = sentSystem(sim);
  expect(system).toBe(expectedSystem(project, system, null));
  expect(warnings(result.stderr)).toEqual([`hel: HEL.md is a FIFO, not a regular file, so ${NOT_USED}`]);
});

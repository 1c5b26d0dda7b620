// Opening a project: the user's and the project's own files come back with it, command files
// included, whatever the mode; each problem with one is printed on stderr as hel's warning line.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { runInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

it("a one-shot run loads the command files too, and prints a bad one's diagnostic as the interactive prompt did", async () => {
  sim = await startSimulator({ script: [{ content: "done" }] });
  const dir = await tempProject();
  await mkdir(join(dir, ".hel", "commands"), { recursive: true });
  await writeFile(join(dir, ".hel", "commands", "exit.md"), "x");
  const run = await runInProcess({ args: ["-C", dir, "hi"], baseUrl: sim.url });
  expect(run.code).toBe(0);
  expect(run.stderr.split("\n").filter((l) => l.startsWith("hel: the command file"))).toEqual(["hel: the command file .hel/commands/exit.md would hide hel's own /exit, so it is skipped — rename it"]);
});

// What the file system can do to a session's snapshot, tried with the built CLI as real processes: a
// FIFO in the snapshot's place never hangs hel, and a file size limit smaller than the next snapshot
// fails the save with a warning instead of killing hel.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { collect, HEL, helEnv, runHel, startHel, type HelResult, type HelRun } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { sessionIdOf } from "../helpers/simulators.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const helLines = (stderr: string): string[] => stderr.split("\n").filter((l) => l.startsWith("hel: "));

/** Waits for the child, killing it if it has not ended in time: a hang must fail the test, not stall it. */
async function bounded(child: ChildProcess, input?: string): Promise<HelResult> {
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  try {
    return await collect(child, input);
  } finally {
    clearTimeout(timer);
  }
}

/** A project with one session saved by a finished one-shot run. */
async function savedSession(): Promise<{ project: string; id: string; snapshot: string }> {
  const project = await tempProject();
  const first = await runHel({ args: ["-C", project, "--tools", "none", "hello"], baseUrl: sim.url });
  expect(first.code).toBe(0);
  const id = sessionIdOf(first.stderr)!;
  return { project, id, snapshot: join(project, ".hel", "sessions", id, "snapshot.json") };
}

it("a FIFO in the snapshot's place: --resume and -c end with one line, exit 2; sessions ls lists it as broken", async () => {
  sim = await startSimulator({ script: [{ content: "hi" }] });
  const { project, id, snapshot } = await savedSession();
  await rm(snapshot);
  execFileSync("mkfifo", [snapshot]);
  const run = (args: string[]): Promise<HelResult> => bounded(startHel({ args: ["-C", project, ...args], baseUrl: sim.url } satisfies HelRun));

  const resumed = await run(["--resume", id, "again"]);
  expect(resumed.signal).toBeNull();
  expect(resumed.code).toBe(2);
  expect(resumed.stderr).toBe(`hel: session ${id}: snapshot.json is not a regular file (${snapshot}) — delete the session with \`hel sessions rm ${id}\`\n`);

  const continued = await run(["-c", "again"]);
  expect(continued.signal).toBeNull();
  expect(continued.code).toBe(2);
  expect(helLines(continued.stderr)).toHaveLength(1);

  const listed = await run(["sessions", "ls", "--json"]);
  expect(listed.signal).toBeNull();
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id, turns: null, error: expect.stringContaining("snapshot.json is not a regular file") })]);
  const table = await run(["sessions", "ls"]);
  expect(table.code).toBe(0);
  expect(table.stdout).toContain(`(session ${id}: snapshot.json is n`);

  expect(sim.requests).toHaveLength(1);
  const removed = await run(["sessions", "rm", id]);
  expect(removed.code).toBe(0);
});

it("a file size limit smaller than the next snapshot: a save-failure warning, exit 1, the old snapshot intact, no temporary file", async () => {
  sim = await startSimulator({ script: [{ content: "hi" }, { content: "noted" }] });
  const { project, id, snapshot } = await savedSession();
  const before = await readFile(snapshot);
  expect(before.byteLength).toBeLessThan(32 * 1024);

  // bash counts `ulimit -f` in blocks of 1024 bytes: a limit of 64 KB, which the long instruction
  // takes the next snapshot past.
  const instruction = "y".repeat(100 * 1024);
  const child = spawn("bash", ["-c", 'ulimit -f 64 && exec "$0" "$@"', process.execPath, HEL, "-C", project, "--tools", "none", "--resume", id, instruction], {
    env: helEnv(sim.url),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const result = await bounded(child);

  expect(result.signal).toBeNull();
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("noted\n");
  expect(helLines(result.stderr)).toEqual([
    `hel: could not save session ${id}: the file is larger than this system allows — raise the file size limit (ulimit -f); the conversation is kept in memory and saved after the next turn`,
  ]);
  expect((await readFile(snapshot)).equals(before)).toBe(true);
  expect((await readdir(join(project, ".hel", "sessions", id))).filter((name) => name.endsWith(".tmp"))).toEqual([]);
});

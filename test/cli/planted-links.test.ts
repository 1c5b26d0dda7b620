// `.hel/` entries that are symbolic links are refused at every level. A clone may commit `.hel` itself,
// `.hel/sessions`, a session's folder or its snapshot.json as a link to a folder elsewhere (`/tmp/…`,
// or `~`): hel, run as root in this process as the command runs it (helpers/conversation.ts), writes
// nothing outside the project through any of them, and says in one line which path is the link.
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { memoFile } from "../../src/fs/file-memo.js";
import { saveSnapshot } from "../../src/session/snapshot-file.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { ID_A, makeSnapshot } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const helLines = (stderr: string): string[] => stderr.split("\n").filter((l) => l.startsWith("hel: "));
const linkLine = (path: string): string => `${path} is a symbolic link`;

/** Every file and folder under `dir`, with each file's content: what a run must leave as it found it. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    out.push(entry.isFile() ? `${path}=${await readFile(path, "utf8")}` : path);
  }
  return out.sort();
}

/** A folder outside the project, as a home folder would be, with a file in it. */
async function elsewhere(): Promise<string> {
  const dir = await tempProject();
  await writeFile(join(dir, ".bashrc"), "# the user's own\n");
  return dir;
}

/** The simulator, a project, and a folder outside it as it was before the run. */
async function setUp(): Promise<{ project: string; outside: string; before: string[] }> {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  const outside = await elsewhere();
  return { project, outside, before: await tree(outside) };
}

it(".hel linked elsewhere (as to ~): a run, -c and sessions ls write nothing there, and name the link", async () => {
  const { project, outside, before } = await setUp();
  await symlink(outside, join(project, ".hel"));
  for (const args of [["hi"], ["-c", "hi"], ["sessions", "ls"]]) {
    const run = await runHelInProcess({ args: ["-C", project, ...args], baseUrl: sim.url });
    expect(run.code).not.toBe(0);
    expect(helLines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toContain(linkLine(join(project, ".hel")));
  }
  expect(sim.requests).toHaveLength(0);
  expect(await tree(outside)).toEqual(before);
});

it(".hel/sessions linked elsewhere: the answer is given but not saved there; -c and ls refuse it with exit 2", async () => {
  const { project, outside, before } = await setUp();
  await mkdir(join(project, ".hel"));
  const link = join(project, ".hel", "sessions");
  await symlink(outside, link);

  const run = await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: sim.url });
  expect(run.stdout).toBe("echo: hi\n");
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`hel: could not take the lease of session `);
  expect(run.stderr).toContain(`: ${link} is a symbolic link, which hel does not follow; remove it`);

  for (const args of [
    ["-c", "hi"],
    ["sessions", "ls"],
  ]) {
    const refused = await runHelInProcess({ args: ["-C", project, ...args], baseUrl: sim.url });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`hel: could not list sessions: ${link} is a symbolic link, which hel does not follow; remove it\n`);
  }
  expect(sim.requests).toHaveLength(1);
  expect(await tree(outside)).toEqual(before);
});

it("a session folder, or its snapshot.json, linked to hel's own session elsewhere: --resume refuses with exit 2, ls says why, nothing is written there", async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  const outside = await elsewhere();
  // A session hel did write, in a project of the user's: the link would lead a resume to it.
  await saveSnapshot(outside, makeSnapshot(outside, ID_A));
  await mkdir(join(project, ".hel", "sessions"), { recursive: true });
  const folder = join(project, ".hel", "sessions", ID_A);
  await symlink(join(outside, ".hel", "sessions", ID_A), folder);
  const before = await tree(outside);

  const resumed = await runHelInProcess({ args: ["-C", project, "--resume", ID_A, "go on"], baseUrl: sim.url });
  expect(resumed.code).toBe(2);
  expect(resumed.stderr).toBe(`hel: could not take the lease of session ${ID_A}: ${folder} is a symbolic link, which hel does not follow; remove it\n`);
  const listed = await runHelInProcess({ args: ["-C", project, "sessions", "ls", "--json"] });
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: ID_A, error: `session ${ID_A}: ${folder} is a symbolic link, which hel does not follow; remove it` })]);
  const shown = await runHelInProcess({ args: ["-C", project, "sessions", "show", ID_A] });
  expect(shown.code).toBe(2);
  expect(helLines(shown.stderr)).toEqual([`hel: session ${ID_A}: ${folder} is a symbolic link, which hel does not follow; remove it`]);
  // -c has nothing of its own to continue: a link is no candidate.
  const continued = await runHelInProcess({ args: ["-C", project, "-c", "go on"], baseUrl: sim.url });
  expect(continued.code).toBe(2);

  // The folder real, its snapshot.json the link.
  await rm(folder);
  await mkdir(folder);
  const file = join(folder, "snapshot.json");
  await symlink(join(outside, ".hel", "sessions", ID_A, "snapshot.json"), file);
  const viaFile = await runHelInProcess({ args: ["-C", project, "--resume", ID_A, "go on"], baseUrl: sim.url });
  expect(viaFile.code).toBe(2);
  expect(viaFile.stderr).toBe(`hel: session ${ID_A}: snapshot.json is a symbolic link (${file}), which hel does not follow — delete the session with \`hel sessions rm ${ID_A}\`\n`);

  expect(sim.requests).toHaveLength(0);
  expect(await tree(outside)).toEqual(before);
});

it(".hel/cache linked elsewhere is not written through: the memo of agents is kept in hel's state folder", async () => {
  const { project, outside, before } = await setUp();
  await mkdir(join(project, ".hel", "agents"), { recursive: true });
  await writeFile(join(project, ".hel", "agents", "review.md"), "---\ndescription: Reviews the diff\n---\nLook closely.\n");
  await symlink(outside, join(project, ".hel", "cache"));
  // Settled, so that a start keeps the agent in its memo (fs/file-memo.ts).
  await sleep(2100);
  const run = await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: sim.url });
  expect(run.code).toBe(0);
  expect((await stat(memoFile(project, "agents"))).isFile()).toBe(true);
  expect(await tree(outside)).toEqual(before);
});

it("a session's commands/, archive/, spill/ and children/ linked to a folder of the user's: a resume and its save delete nothing there", { timeout: 60_000 }, async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  const outside = await elsewhere();
  // Names hel's own clean-ups would take for theirs: a command record, an archive no index names, a temporary file.
  await writeFile(join(outside, "4242.json"), "{}\n");
  await writeFile(join(outside, "notes.json"), "{}\n");
  await writeFile(join(outside, "draft.1.tmp"), "\n");
  const before = await tree(outside);
  await saveSnapshot(project, makeSnapshot(project, ID_A));
  for (const name of ["commands", "archive", "spill", "children"]) await symlink(outside, join(project, ".hel", "sessions", ID_A, name));
  const resumed = await runHelInProcess({ args: ["-C", project, "--resume", ID_A, "go on"], baseUrl: sim.url });
  expect(resumed.code).toBe(0);
  expect(await tree(outside)).toEqual(before);
});

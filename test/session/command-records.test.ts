// A command a session started keeps the session in use for as long as its process group runs, even
// when no process holds the lease any more; a record of a group that is gone, or whose id now belongs to
// someone else, or that cannot be read, does not, and the next holder removes it. Real process groups.
import { spawn, type ChildProcess } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { recordCommand } from "../../src/session/command-records.js";
import { acquireLease, isLeased } from "../../src/session/lease.js";
import { sessionPaths } from "../../src/session/paths.js";
import { saveSnapshot } from "../../src/session/snapshot-file.js";
import { groupHasLiveMembers, groupOf } from "../../src/tools/command/process-group.js";
import { ID_A, makeSnapshot, sessionError } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

let project: string;
const groups: ChildProcess[] = [];

beforeEach(async () => {
  project = await tempProject();
  await saveSnapshot(project, makeSnapshot(project, ID_A));
});
afterEach(() => {
  for (const child of groups.splice(0)) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
});

/** A process group of its own, as run_command starts one: a shell with a child. */
async function startGroup(): Promise<number> {
  const child = spawn("/bin/sh", ["-c", "sleep 3070 & wait"], { detached: true, stdio: "ignore" });
  groups.push(child);
  await new Promise((resolve) => child.once("spawn", resolve));
  return child.pid!;
}

const dir = () => sessionPaths(project, ID_A).dir;
const records = () => readdir(join(dir(), "commands")).catch(() => []);

it("refuses the session while a recorded command's group runs, and frees it once the group is gone", async () => {
  const pgid = await startGroup();
  await recordCommand(dir(), groupOf(pgid));
  expect(await isLeased(project, ID_A)).toBe(true);
  const refused = await sessionError(() => acquireLease(project, ID_A));
  expect({ code: refused.exitCode, message: refused.message }).toEqual({
    code: 3,
    message: `session ${ID_A} is in use: a command it started is still running (process group ${pgid}) — wait for it to end, or end it with \`kill -- -${pgid}\``,
  });

  process.kill(-pgid, "SIGKILL");
  await waitFor(() => !groupHasLiveMembers(pgid), "the group to end");
  expect(await isLeased(project, ID_A)).toBe(false);
  const lease = await acquireLease(project, ID_A);
  expect(await records()).toEqual([]);
  await lease.release();
});

it("does not count a group whose id now leads another process", async () => {
  const pgid = await startGroup();
  await recordCommand(dir(), { pgid, leaderStart: "1" });
  expect(await isLeased(project, ID_A)).toBe(false);
  const lease = await acquireLease(project, ID_A);
  expect(await records()).toEqual([]);
  await lease.release();
});

it("does not count a record it cannot read, nor one never renamed into place", async () => {
  await recordCommand(dir(), { pgid: 999_999, leaderStart: null });
  await writeFile(join(dir(), "commands", "123.json"), '{"pgid": 12');
  await writeFile(join(dir(), "commands", "456.json.tmp"), "");
  const lease = await acquireLease(project, ID_A);
  expect(await records()).toEqual([]);
  await lease.release();
});

it("forgets the record when run_command says the group is gone", async () => {
  const pgid = await startGroup();
  const forget = await recordCommand(dir(), groupOf(pgid));
  expect(await records()).toEqual([`${pgid}.json`]);
  await forget();
  expect(await records()).toEqual([]);
});

// The commands a session started that may still run, one file per process group under the session's
// commands/ directory. A command can outlive the hel that started it (under `full` access nothing ties
// it to hel), and while it runs the session counts as in use: it may still be changing the project
// that session is working on. A record whose group is gone is just history, removed by the next holder.
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ownDir } from "../fs/own-dir.js";
import { z } from "../zod.js";
import { recordedGroupAlive } from "../tools/command/process-group.js";
import type { ProcessGroup } from "../tools/types.js";

const CommandRecordSchema = z.object({
  pgid: z.number().int().positive(),
  leader_start: z.string().nullable(),
  started_at: z.string(),
});
type CommandRecord = z.infer<typeof CommandRecordSchema>;

const recordsDir = (sessionDir: string): string => join(sessionDir, "commands");

/** Writes the group's record; resolves to the function that removes it once the group is gone. */
export async function recordCommand(sessionDir: string, group: ProcessGroup): Promise<() => Promise<void>> {
  const dir = recordsDir(sessionDir);
  // A real folder only: a link planted in its place (a clone's, to `~`) is refused, never written through.
  await ownDir(sessionDir, dir, true);
  const file = join(dir, `${group.pgid}.json`);
  const record: CommandRecord = { pgid: group.pgid, leader_start: group.leaderStart, started_at: new Date().toISOString() };
  // Renamed into place whole: a hel killed halfway must not leave an empty record, which counts for nothing.
  const tmp = `${file}.tmp`;
  // Whatever is at the temporary name (one left by a kill, a planted link) goes first: never written through.
  await rm(tmp, { force: true });
  await writeFile(tmp, JSON.stringify(record) + "\n", { flag: "wx" });
  await rename(tmp, file);
  return () => rm(file, { force: true });
}

/** Process groups of the session's commands that still run. */
export async function runningCommands(sessionDir: string): Promise<number[]> {
  const running: number[] = [];
  for (const { group } of await readRecords(sessionDir)) {
    if (group !== null && recordedGroupAlive(group)) running.push(group.pgid);
  }
  return running;
}

/** Removes the records of groups that are gone, and unreadable ones (a write cut short by a crash). */
export async function removeFinishedCommands(sessionDir: string): Promise<void> {
  for (const { file, group } of await readRecords(sessionDir)) {
    if (group === null || !recordedGroupAlive(group)) await rm(file, { force: true });
  }
}

async function readRecords(sessionDir: string): Promise<{ file: string; group: ProcessGroup | null }[]> {
  const dir = recordsDir(sessionDir);
  // Records are removed as they are read: through a link planted in the folder's place, that would
  // delete files elsewhere. Such a folder holds no record of hel's.
  if (!(await ownDir(sessionDir, dir, false).catch(() => false))) return [];
  const names = await readdir(dir).catch(() => [] as string[]);
  const records = [];
  for (const name of names) {
    const file = join(dir, name);
    // Any other name is a record its writer never renamed into place: it counts for nothing.
    records.push({ file, group: name.endsWith(".json") ? await readGroup(file) : null });
  }
  return records;
}

async function readGroup(file: string): Promise<ProcessGroup | null> {
  try {
    const record = CommandRecordSchema.parse(JSON.parse(await readFile(file, "utf8")));
    return { pgid: record.pgid, leaderStart: record.leader_start };
  } catch {
    // Gone since the listing, or not a record hel wrote: no group to wait for.
    return null;
  }
}

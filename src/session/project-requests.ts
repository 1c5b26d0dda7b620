// Every request log of a project's sessions, for `hel stats`: only the logs are read, never a snapshot,
// so a thousand sessions cost a thousand small reads. A session directory reached through a link is
// passed over (its log would be someone else's file); a saved session without a log is counted as
// unrecorded, so the report can say what it leaves out.
import { lstat } from "node:fs/promises";
import { ownDir } from "../fs/own-dir.js";
import { sessionIds } from "./catalog.js";
import { sessionPaths } from "./paths.js";
import { readRequestLog } from "./request-log.js";
import type { SessionRequests } from "./request-stats.js";

export interface ProjectRequests {
  sessions: SessionRequests[];
  unrecorded: number;
}

// Reads overlap this many at a time: the files are small, so the time is the system calls' round trips.
const AT_ONCE = 16;

export async function projectRequests(projectDir: string): Promise<ProjectRequests> {
  const ids = await sessionIds(projectDir);
  const sessions: SessionRequests[] = [];
  let unrecorded = 0;
  const readOne = async (id: string): Promise<void> => {
    const paths = sessionPaths(projectDir, id);
    if (!(await ownDir(projectDir, paths.dir, false).catch(() => false))) return;
    const log = await readRequestLog(paths.requests).catch(() => null);
    if (log) sessions.push(log);
    else if (
      await lstat(paths.snapshot).then(
        () => true,
        () => false,
      )
    )
      unrecorded++;
  };
  for (let i = 0; i < ids.length; i += AT_ONCE) await Promise.all(ids.slice(i, i + AT_ONCE).map(readOne));
  return { sessions, unrecorded };
}

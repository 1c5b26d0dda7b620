// The answered requests every session of a project keeps, for `hel stats`: read from each snapshot's
// first line (its header) alone, never its messages, so a thousand sessions cost a thousand short
// reads. They are read as data anyone could have written (a clone can carry sessions): a request
// that is not one is skipped and counted, never fatal. A session hel cannot read this way (another
// layout, or saved before requests were kept) is counted as unrecorded, so the report can say what it
// leaves out; a directory that holds no snapshot is no saved session and is not counted at all.
import { headerOnFirstLine } from "./snapshot-file.js";
import { sessionIds } from "./catalog.js";
import { RequestUsageSchema } from "../agent/usage.js";
import type { SessionRequests } from "./request-stats.js";

export interface ProjectRequests {
  sessions: SessionRequests[];
  unrecorded: number;
}

// Reads overlap this many at a time: the lines are short, so the time is the system calls' round trips.
const AT_ONCE = 16;

export async function projectRequests(projectDir: string): Promise<ProjectRequests> {
  const ids = await sessionIds(projectDir);
  const sessions: SessionRequests[] = [];
  let unrecorded = 0;
  const readOne = async (id: string): Promise<void> => {
    let header: Record<string, unknown> | null;
    try {
      header = await headerOnFirstLine(projectDir, id);
    } catch (error) {
      // No snapshot: never saved. Anything else (a link, a FIFO, no permission) is a session not read.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") unrecorded++;
      return;
    }
    const kept = header?.requests;
    if (!Array.isArray(kept)) {
      unrecorded++;
      return;
    }
    const parsed = kept.map((r) => RequestUsageSchema.safeParse(r));
    sessions.push({ records: parsed.flatMap((p) => (p.success ? [p.data] : [])), skipped: parsed.filter((p) => !p.success).length });
  };
  for (let i = 0; i < ids.length; i += AT_ONCE) await Promise.all(ids.slice(i, i + AT_ONCE).map(readOne));
  return { sessions, unrecorded };
}

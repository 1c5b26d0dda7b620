// Where a project's sessions live, under .hel/ (fs/hel-dir.ts). Pure path arithmetic: nothing here
// creates a directory, so a run that never answers leaves no trace.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { helDir } from "../fs/hel-dir.js";
import { SessionError } from "./errors.js";

export interface SessionPaths {
  dir: string;
  snapshot: string;
  spill: string;
  children: string;
  /** Spans that left the view, one `<handle>.json` each. */
  archive: string;
  /** The lease: a directory proper-lockfile creates while a process uses the session. */
  active: string;
  /** Which process took the lease last: a token it checks before each save replaces the snapshot. */
  holder: string;
}

export const sessionsDir = (projectDir: string): string => join(helDir(projectDir), "sessions");
export const storeLockPath = (projectDir: string): string => join(helDir(projectDir), ".sessions.lock");

// Ids become directory names, so anything that could climb out of sessions/ (a "/" or "..") is refused.
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
export const isValidSessionId = (id: string): boolean => ID_PATTERN.test(id);

export function sessionPaths(projectDir: string, id: string): SessionPaths {
  if (!isValidSessionId(id)) {
    throw new SessionError(`"${id}" is not a session id — \`hel sessions ls\` lists them`, 2);
  }
  const dir = join(sessionsDir(projectDir), id);
  return {
    dir,
    snapshot: join(dir, "snapshot.json"),
    spill: join(dir, "spill"),
    children: join(dir, "children"),
    archive: join(dir, "archive"),
    active: join(dir, ".active"),
    holder: join(dir, ".active.holder"),
  };
}

export const newSessionId = (): string => randomUUID();

// Where a project's sessions live (design §1 Files). Pure path arithmetic, except ensureHelDir, which
// callers invoke only when something is about to be written: a run that never answers leaves no trace.
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { SessionError } from "./errors.js";

export interface SessionPaths {
  dir: string;
  snapshot: string;
  spill: string;
  children: string;
  /** The lease: a directory proper-lockfile creates while a process uses the session. */
  active: string;
}

export const helDir = (projectDir: string): string => join(resolve(projectDir), ".hel");
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
    active: join(dir, ".active"),
  };
}

export const newSessionId = (): string => randomUUID();

/** Creates .hel/ with a .gitignore of "*" so nothing under it is ever committed; a no-op when present. */
export async function ensureHelDir(projectDir: string): Promise<string> {
  const dir = helDir(projectDir);
  await mkdir(dir, { recursive: true });
  try {
    // "wx": a .gitignore the user edited is theirs to keep.
    await writeFile(join(dir, ".gitignore"), "*\n", { flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  return dir;
}

// The sessions of one project, as a person names and sees them: an id or a unique prefix resolved,
// the list newest first, the latest one for `hel -c`, and whole sessions deleted. Listing checks each
// snapshot as a load would (snapshot-file.ts) and keeps nothing of it. Deleting touches nothing but
// the named session directories, and only while no process holds their lease.
import { readdir, rm } from "node:fs/promises";
import { unstamped } from "../agent/stamps.js";
import { SessionError, systemProblem } from "./errors.js";
import { acquireLease, isLeased, withStoreLock, type Lease } from "./lease.js";
import { isValidSessionId, sessionPaths, sessionsDir } from "./paths.js";
import { lookAtSnapshot, updatedAtOnFirstLine } from "./snapshot-file.js";

/** The ids of the session directories of this project, unsorted; none when .hel does not exist. */
async function sessionIds(projectDir: string): Promise<string[]> {
  try {
    const entries = await readdir(sessionsDir(projectDir), { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && isValidSessionId(e.name)).map((e) => e.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new SessionError(`could not list sessions: ${systemProblem(e)} — check the permissions of ${sessionsDir(projectDir)}`, 1);
  }
}

/** A full id or a unique prefix of one, as typed by a person. */
export async function resolveSessionId(projectDir: string, idOrPrefix: string): Promise<string> {
  const wanted = idOrPrefix.trim();
  const ids = await sessionIds(projectDir);
  if (wanted && ids.includes(wanted)) return wanted;
  const matches = wanted ? ids.filter((id) => id.startsWith(wanted)).sort() : [];
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new SessionError(`no session ${idOrPrefix} in this project — \`hel sessions ls\` lists them`, 2);
  const shown = matches.slice(0, 5).join(", ") + (matches.length > 5 ? `, and ${matches.length - 5} more` : "");
  throw new SessionError(`session id ${idOrPrefix} is ambiguous: it matches ${shown} — type more of the id`, 2);
}

export interface SessionSummary {
  id: string;
  /** null when the snapshot is missing or unreadable. */
  updated_at: string | null;
  /** User messages: the instructions given so far. */
  turns: number | null;
  first_instruction: string | null;
  /** usage.prompt_tokens + usage.completion_tokens, over the whole session. */
  tokens: number | null;
  model: string | null;
  in_use: boolean;
  /** Why this session cannot be resumed (the same line resume would print), or null. */
  error: string | null;
}

interface ListedSession extends SessionSummary {
  /** Ordering key: updated_at, or the file's mtime when the snapshot cannot say. */
  sortTime: number;
}

async function summarize(projectDir: string, id: string): Promise<ListedSession> {
  const in_use = await isLeased(projectDir, id).catch(() => false);
  const look = await lookAtSnapshot(projectDir, id, (s) => {
    const users = s.messages.filter((m) => m.role === "user");
    return {
      updated_at: s.updated_at,
      turns: users.length,
      first_instruction: users[0] ? unstamped(users[0].content) : null,
      tokens: s.usage.prompt_tokens + s.usage.completion_tokens,
      model: s.request_config.model,
    };
  });
  if (look.ok) return { id, ...look.value, in_use, error: null, sortTime: Date.parse(look.value.updated_at) };
  const { error, updatedAt } = look;
  // A broken snapshot may still say when it was written; that keeps `ls` and `-c` in a sensible order.
  const sortTime = updatedAt !== null ? Date.parse(updatedAt) : look.mtimeMs;
  return { id, updated_at: updatedAt, turns: null, first_instruction: null, tokens: null, model: null, in_use, error, sortTime };
}

/** This project's sessions, newest first; broken ones carry an error note instead of failing the list. */
export async function listSessions(projectDir: string): Promise<SessionSummary[]> {
  const out: ListedSession[] = [];
  // One at a time: snapshots can be tens of megabytes, and reading them all at once would hold them all.
  for (const id of await sessionIds(projectDir)) out.push(await summarize(projectDir, id));
  out.sort((a, b) => b.sortTime - a.sortTime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return out.map(({ sortTime: _, ...summary }) => summary);
}

/**
 * The most recently updated session, for `hel -c`; null when there is none. In the order `hel
 * sessions ls` shows, but from each snapshot's first line (its header, with updated_at) rather than
 * a load of every session: choosing must not cost as much as resuming them all. A newest session
 * whose snapshot is broken is still chosen, so resuming it fails loudly instead of silently
 * continuing an older one. Sessions never saved (no readable snapshot.json) are not candidates.
 */
export async function latestSessionId(projectDir: string): Promise<string | null> {
  let latest: { id: string; time: number } | null = null;
  for (const id of await sessionIds(projectDir)) {
    const time = await lastWritten(projectDir, id);
    if (time !== null && (!latest || time > latest.time || (time === latest.time && id < latest.id))) latest = { id, time };
  }
  return latest?.id ?? null;
}

/** A saved session's place in the `ls` order (see summarize), or null when it has no readable snapshot. */
async function lastWritten(projectDir: string, id: string): Promise<number | null> {
  let updated: string | null;
  try {
    updated = await updatedAtOnFirstLine(projectDir, id);
  } catch {
    return null;
  }
  // Another layout, or a header that cannot say: the whole summary decides, as for `ls`.
  return updated !== null ? Date.parse(updated) : (await summarize(projectDir, id)).sortTime;
}

/**
 * Deletes whole sessions: snapshot, spill, children and lease. All ids are resolved and leased first,
 * so either every named session is removed or, when one is unknown or in use, none is.
 * Returns the full ids removed.
 */
export async function removeSessions(projectDir: string, idsOrPrefixes: readonly string[]): Promise<string[]> {
  return withStoreLock(projectDir, async () => {
    const ids: string[] = [];
    for (const x of idsOrPrefixes) {
      const id = await resolveSessionId(projectDir, x);
      if (!ids.includes(id)) ids.push(id);
    }
    const leases: Lease[] = [];
    try {
      // Holding the lease, not just checking it, closes the gap in which a new process could start using it.
      for (const id of ids) leases.push(await acquireLease(projectDir, id));
      for (const id of ids) {
        // rm does not follow symlinks: a link inside spill/ is removed, never what it points to.
        await rm(sessionPaths(projectDir, id).dir, { recursive: true, force: true });
      }
    } catch (e) {
      if (e instanceof SessionError) throw e;
      throw new SessionError(`could not delete session: ${systemProblem(e)} — check the permissions of ${sessionsDir(projectDir)}`, 1);
    } finally {
      for (const lease of leases) await lease.release();
    }
    return ids;
  });
}

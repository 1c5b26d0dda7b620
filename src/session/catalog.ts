// The sessions of one project, as a person names and sees them: an id or a unique prefix resolved,
// the list newest first, the latest one hel wrote for `hel -c`, and whole sessions deleted. Listing
// checks each snapshot as a load would (snapshot-file.ts) and keeps nothing of it; a session hel did
// not write here (signature.ts) is listed and marked, never chosen by `-c`. Deleting touches nothing
// but the named session directories, and only while no process holds their lease. `.hel/sessions`
// must be a real directory: a link there is refused, not followed.
import { readdir, rm } from "node:fs/promises";
import { NotOwnDirError, ownDir } from "../fs/own-dir.js";
import { unstamped } from "../agent/stamps.js";
import { SessionError, systemProblem } from "./errors.js";
import { acquireLease, isLeased, withStoreLock, type Lease } from "./lease.js";
import { isValidSessionId, sessionPaths, sessionsDir } from "./paths.js";
import { lookAtSnapshot, updatedAtOnFirstLine, writtenByHel } from "./snapshot-file.js";

/**
 * The ids of the session directories of this project, unsorted; none when .hel does not exist. A
 * link in a session's place is listed, so that what is wrong with it is said where it is used.
 */
export async function sessionIds(projectDir: string): Promise<string[]> {
  try {
    if (!(await ownDir(projectDir, sessionsDir(projectDir), false))) return [];
    const entries = await readdir(sessionsDir(projectDir), { withFileTypes: true });
    return entries.filter((e) => (e.isDirectory() || e.isSymbolicLink()) && isValidSessionId(e.name)).map((e) => e.name);
  } catch (e) {
    if (e instanceof NotOwnDirError) throw new SessionError(`could not list sessions: ${e.message}`, 2);
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
  /** false: not written by this user's hel in this project (cloned, copied, or older); resumed only with --trust. */
  written_by_hel: boolean;
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
  const written_by_hel = look.signed;
  if (look.ok) return { id, ...look.value, in_use, written_by_hel, error: null, sortTime: Date.parse(look.value.updated_at) };
  const { error, updatedAt } = look;
  // A broken snapshot may still say when it was written; that keeps `ls` and `-c` in a sensible order.
  const sortTime = updatedAt !== null ? Date.parse(updatedAt) : look.mtimeMs;
  return { id, updated_at: updatedAt, turns: null, first_instruction: null, tokens: null, model: null, in_use, written_by_hel, error, sortTime };
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
 * The most recently updated session that this user's hel wrote here, for `hel -c`; null when there is
 * none. In the order `hel sessions ls` shows, but from each snapshot's first line (its header, with
 * updated_at) rather than a load of every session: choosing must not cost as much as resuming them
 * all. Only the newest is read whole, to check its signature; one that hel did not write (a clone's,
 * with an updated_at in the future, say) is passed over, and `passedOver` is told which were.
 * Sessions never saved (no readable snapshot.json) are not candidates.
 */
export async function latestSessionId(projectDir: string, passedOver?: (ids: string[]) => void): Promise<string | null> {
  const candidates: { id: string; time: number }[] = [];
  for (const id of await sessionIds(projectDir)) {
    const time = await lastWritten(projectDir, id);
    if (time !== null) candidates.push({ id, time });
  }
  candidates.sort((a, b) => b.time - a.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const skipped: string[] = [];
  let latest: string | null = null;
  for (const { id } of candidates) {
    if (await writtenByHel(projectDir, id)) {
      latest = id;
      break;
    }
    skipped.push(id);
  }
  if (skipped.length > 0) passedOver?.(skipped);
  return latest;
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

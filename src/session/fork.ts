// Forks and rewinds of a saved session. A fork is a new session (new id) whose conversation is the
// original's first N turns byte for byte, so its first request is served from the prompt cache; the
// original is untouched. A rewind puts a session's files and/or conversation back to before turn N,
// under the session's lease (refused while another process holds it, exit 3); the turns it takes out
// of the conversation become a fork first, and the files are checkpointed first, so nothing is lost
// and the rewind itself can be undone.
import type { FileChange } from "../changes/checkpoints.js";
import { toolCallsOf } from "../wire/stored-message.js";
import type { Message } from "../wire/messages.js";
import { Checkpointing, checkpointBefore } from "./turn-checkpoints.js";
import { archiveStore } from "./archive-store.js";
import { acquireLease } from "./lease.js";
import { newSessionId } from "./paths.js";
import type { Snapshot, Turn } from "./snapshot-format.js";
import { loadSnapshotFile, saveSnapshot } from "./snapshot-file.js";
import { SessionError } from "./errors.js";
import { newTurn, viewBeforeTurn } from "./turns.js";

/** The session's turns: as saved, or, for a session saved before turns were kept, read from its view. */
function turnsOf(snapshot: Snapshot): Turn[] {
  if (snapshot.turns) return [...snapshot.turns];
  const turns: Turn[] = [];
  for (const message of snapshot.messages) {
    const turn = message.role === "user" ? newTurn(turns, message) : null;
    if (turn) turns.push(turn);
  }
  return turns;
}

/** The snapshot cut to its first `n` turns (the view before turn n + 1), or an error for the user. */
function keepTurns(snapshot: Snapshot, n: number): Snapshot {
  const turns = turnsOf(snapshot);
  const cut = viewBeforeTurn(snapshot.messages, turns, n + 1);
  if (!cut.ok) throw new SessionError(`cannot keep ${n} turn${n === 1 ? "" : "s"} of session ${snapshot.session_id}: ${cut.error}`, 2);
  const messages: Message[] = cut.messages;
  const whole = messages.length === snapshot.messages.length;
  const firstGone = whole ? Infinity : (turns.find((t) => t.n === n + 1)?.stamp ?? Infinity);
  const calls = new Set(messages.flatMap((m) => (toolCallsOf(m) ?? []).map((c) => c.id)));
  const { last_turn: lastTurn, edits, ...rest } = snapshot;
  return {
    ...rest,
    ...(whole && lastTurn ? { last_turn: lastTurn } : {}),
    ...(edits ? { edits: edits.filter((e) => calls.has(e.call_id)) } : {}),
    // The meter measured the whole view; for a shorter one it starts over.
    meter: whole ? snapshot.meter : { message_count: 0, input_tokens: 0 },
    archive: snapshot.archive.filter((entry) => (entry.first_stamp ?? 0) < firstGone),
    turns: turns.filter((t) => t.n <= n),
    checkpoints: (snapshot.checkpoints ?? []).filter((c) => c.turn <= n && c.kind !== "rewind"),
    messages,
  };
}

/**
 * Copies the archive files a forked snapshot names, so its recall and ask still find them: read and
 * written as the archive store reads and writes, never through a link.
 */
async function copyArchives(projectDir: string, from: string, to: string, snapshot: Snapshot): Promise<void> {
  if (snapshot.archive.length === 0) return;
  const source = archiveStore(projectDir, from);
  const target = archiveStore(projectDir, to);
  for (const { handle } of snapshot.archive) {
    const bytes = await source.bytes(handle).catch(() => null);
    if (bytes !== null) await target.copy(handle, bytes);
  }
}

/** Makes the fork of session `id` keeping its first `at` turns (all by default); returns the new id. */
export async function forkSession(projectDir: string, id: string, at?: number): Promise<{ id: string; turns: number }> {
  const { snapshot } = await loadSnapshotFile(projectDir, id);
  const turns = turnsOf(snapshot);
  const n = at ?? turns.length;
  if (!Number.isInteger(n) || n < 0 || n > turns.length) {
    throw new SessionError(`session ${id} has ${turns.length} turn${turns.length === 1 ? "" : "s"}; --at takes 0 to ${turns.length}`, 2);
  }
  const kept = keepTurns(snapshot, n);
  const forkId = newSessionId();
  const now = new Date().toISOString();
  // The fork starts with no subagent transcripts of its own, and none of the original's requests: the
  // original made them and keeps them (the fork's usage starts at zero below, and so does its list).
  const { child_transcripts: _, ...withoutTranscripts } = kept;
  const fork: Snapshot = {
    ...withoutTranscripts,
    session_id: forkId,
    created_at: now,
    updated_at: now,
    usage: { ...kept.usage, requests: 0, prompt_tokens: 0, completion_tokens: 0, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 0 },
    children: 0,
    requests: [],
    forked_from: { session_id: id, turn: n },
  };
  const lease = await acquireLease(projectDir, forkId, { create: true });
  try {
    await copyArchives(projectDir, id, forkId, fork);
    // The fork's checkpoints are kept by refs of its own, so pruning the original keeps them.
    if (fork.checkpoints?.length) {
      const { findCheckpoints } = await import("../changes/checkpoints.js");
      await (await findCheckpoints(projectDir).catch(() => null))
        ?.keep(
          `${forkId}/`,
          fork.checkpoints.map((c) => c.commit),
        )
        .catch(() => undefined);
    }
    await saveSnapshot(projectDir, fork, { lease, expected: null });
  } finally {
    await lease.release();
  }
  return { id: forkId, turns: n };
}

export interface RewindRequest {
  /** Before this turn; "rewind": the state before the latest rewind (undoing it). */
  to: number | "rewind";
  files: boolean;
  conversation: boolean;
}

export interface RewindReport {
  files: FileChange[] | null;
  /** The fork holding the turns taken out of the conversation. */
  fork: string | null;
  turnsKept: number;
}

export async function rewindSession(projectDir: string, id: string, request: RewindRequest, warn: (line: string) => void): Promise<RewindReport> {
  const lease = await acquireLease(projectDir, id);
  try {
    const { snapshot, identity } = await loadSnapshotFile(projectDir, id);
    const turns = turnsOf(snapshot);
    const checkpointing = new Checkpointing({ projectDir, sessionId: () => id, warn, maxBytes: Infinity, secrets: [process.env.DEEPSEEK_API_KEY ?? ""] }, snapshot.checkpoints ?? []);
    // A rewind of this session that a kill cut short is finished, and its undo listed, before choosing.
    if (request.files) await checkpointing.recovered();
    const target = request.to === "rewind" ? (checkpointing.entries.findLast((e) => e.kind === "rewind") ?? null) : checkpointBefore(checkpointing.entries, request.to);
    if (request.to === "rewind" && !target) throw new SessionError(`session ${id} has no rewind to undo`, 2);
    const to = request.to === "rewind" ? turns.length + 1 : request.to;
    if (!Number.isInteger(to) || to < 1 || to > turns.length + 1) throw new SessionError(`session ${id} has ${turns.length} turn${turns.length === 1 ? "" : "s"}; --to takes 1 to ${turns.length + 1}`, 2);

    let files: FileChange[] | null = null;
    if (request.files) files = target ? await checkpointing.restore(target, turns.length) : [];
    let fork: string | null = null;
    let next: Snapshot = { ...snapshot, checkpoints: checkpointing.entries };
    if (request.conversation && to <= turns.length) {
      fork = (await forkSession(projectDir, id)).id;
      const kept = keepTurns(next, to - 1);
      // The turns taken out went to the fork with their checkpoints; a rewind's own checkpoint stays, to undo it.
      const checkpoints = checkpointing.entries.filter((e) => e.turn < to || e.kind === "rewind");
      next = { ...kept, checkpoints, usage: snapshot.usage, updated_at: new Date().toISOString() };
    }
    await saveSnapshot(projectDir, next, { lease, expected: identity });
    return { files, fork, turnsKept: request.conversation ? Math.min(to - 1, turns.length) : turns.length };
  } finally {
    await lease.release();
  }
}

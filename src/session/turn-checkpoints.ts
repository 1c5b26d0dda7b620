// When a session's files are checkpointed, and which checkpoint stands for "before turn N": before
// the first call of a turn that may change files (an edit, or a command under edit or full access),
// at the end of such a turn, and before a rewind. The store (changes/checkpoints.ts, which runs git)
// is loaded on the first checkpoint, so a run that changes nothing never starts git. Without git,
// checkpoints are off with one warning; a failed checkpoint warns and never stops a tool, but a call
// interrupted (Ctrl-C) while its checkpoint is made does not run. A rewind is refused when the files
// before it cannot be checkpointed (it could not be undone); one that a kill cut short is finished the
// next time the session's checkpoints are opened, and its undo is listed.
import type { CheckpointStore, FileChange } from "../changes/checkpoints.js";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ProjectChanges } from "../changes/unified-diff.js";
import type { CheckpointEntry } from "./snapshot-format.js";

/** A file larger than this is named in "what changed", not diffed. */
const MAX_DIFF_FILE_BYTES = 1024 * 1024;

/** The most turns whose checkpoints are kept; older ones are pruned. */
const KEEP_TURNS = 100;

export interface CheckpointingOptions {
  projectDir: string;
  /** The session's id, asked for only when a checkpoint is made. */
  sessionId: () => string;
  warn: (line: string) => void;
  /** Past this size the oldest checkpoints are pruned (config `checkpoint-max-mb`). */
  maxBytes: number;
  /** Values no checkpoint may hold (the API key): a file containing one is left out. */
  secrets?: readonly string[];
}

/**
 * The checkpoint standing for the project as it was before turn `n`: that turn's own, else the
 * last one made before it (the end of the last turn that changed files), else the first one after
 * it (no turn between changed a file); null when no checkpoint tells. A rewind's own checkpoint
 * stands for no turn: it is only what undoing that rewind puts back.
 */
export function checkpointBefore(all: readonly CheckpointEntry[], n: number): CheckpointEntry | null {
  const entries = all.filter((e) => e.kind !== "rewind");
  return entries.find((e) => e.kind === "turn" && e.turn === n) ?? entries.findLast((e) => e.turn < n) ?? entries.find((e) => e.kind === "turn" && e.turn > n) ?? null;
}

export class Checkpointing {
  readonly entries: CheckpointEntry[];
  private turn = 0;
  private changedThisTurn = false;
  private store: Promise<CheckpointStore | null> | null = null;
  private pending: Promise<void> | null = null;

  constructor(
    private readonly options: CheckpointingOptions,
    stored: readonly CheckpointEntry[],
  ) {
    this.entries = [...stored];
  }

  private open(): Promise<CheckpointStore | null> {
    return (this.store ??= import("../changes/checkpoints.js")
      .then(
        async ({ openCheckpoints }) => this.recover(await openCheckpoints(this.options.projectDir, { secrets: this.options.secrets ?? [] })),
        () => null,
      )
      .catch((error: Error) => {
        this.options.warn(/ENOENT/.test(error.message) ? "git is not installed: file checkpoints are off (no /rewind or /undo of files) — install git to have them" : `file checkpoints are off: ${error.message}`);
        return null;
      }));
  }

  /**
   * Finishes the session's rewind that a kill left half done, and lists its undo when no snapshot
   * saved it (no checkpoint listed is newer than the rewind).
   */
  private async recover(store: CheckpointStore): Promise<CheckpointStore> {
    const prefix = `${this.options.sessionId()}/`;
    const journal = await store.journal(prefix);
    if (!journal) return store;
    if (!journal.done) {
      this.options.warn("finishing a rewind of files that a stopped hel left half done");
      // A failure is said, and checkpoints go on: the rewind's undo is listed all the same.
      await store.restore(journal.target, { prefix, before: journal.before }).catch((error: Error) => this.options.warn(`could not finish it: ${error.message}`));
    }
    if (journal.before && !this.entries.some((e) => e.commit === journal.before) && this.entries.every((e) => e.at <= journal.at)) {
      this.entries.push({ turn: this.entries.at(-1)?.turn ?? 0, kind: "rewind", commit: journal.before, at: journal.at, left_out: [] });
    }
    return store;
  }

  /** Opens the store, finishing a rewind a kill cut short: before a rewind chooses what to put back. */
  async recovered(): Promise<void> {
    await this.open();
  }

  /** Records the working tree as `kind` for `turn`; null when checkpoints are off, it failed, or `signal` ended it. */
  async record(kind: CheckpointEntry["kind"], turn: number, signal?: AbortSignal): Promise<CheckpointEntry | null> {
    const store = await this.open();
    if (!store) return null;
    try {
      const id = this.options.sessionId();
      const { commit, leftOut } = await store.record(`${id}/`, `hel ${kind} checkpoint of session ${id}, turn ${turn}`, signal);
      const entry: CheckpointEntry = { turn, kind, commit, at: new Date().toISOString(), left_out: leftOut };
      this.entries.push(entry);
      return entry;
    } catch (error) {
      if (!signal?.aborted) this.options.warn(`could not checkpoint the project's files: ${(error as Error).message}`);
      return null;
    }
  }

  startTurn(n: number): void {
    this.turn = n;
    this.changedThisTurn = false;
  }

  /**
   * For ToolContext.changes.beforeChange: the first file-changing call of a turn waits for its checkpoint.
   * Interrupted (`signal`), the checkpoint stops and the call must not run: this rejects.
   */
  beforeChange = async (signal?: AbortSignal): Promise<void> => {
    if (!this.changedThisTurn) {
      this.changedThisTurn = true;
      this.pending = this.record("turn", this.turn, signal).then(() => undefined);
    }
    await this.pending;
    if (signal?.aborted) {
      this.changedThisTurn = false;
      throw new Error("interrupted while the project's files were checkpointed; nothing was run");
    }
  };

  /** At the end of a turn that may have changed files: its end state, then pruning. */
  async endTurn(): Promise<void> {
    if (!this.changedThisTurn) return;
    await this.pending;
    await this.record("end", this.turn);
    await this.prune();
  }

  /**
   * At a resume, the files that differ from the newest checkpoint of the session — the end of its
   * last saved turn, or the start of a turn that a kill cut off before its save, whose changes no
   * snapshot knows. That checkpoint is listed (as the end of the last saved turn), so `/rewind` to
   * the next turn puts the files back.
   */
  async gap(lastTurn: number): Promise<FileChange[]> {
    // No checkpoint was ever made for this project (none listed, no store on disk): nothing to compare,
    // and no git to start on the way to the first request.
    const made = this.entries.length > 0 || (lastTurn > 0 && (await (await import("../changes/checkpoints.js")).findCheckpoints(this.options.projectDir).catch(() => null)) !== null);
    const store = made ? await this.open() : null;
    if (!store) return [];
    try {
      // A checkpoint no snapshot lists was made in a turn that was never saved: the one made at its
      // start is the project as the last saved turn left it. Otherwise the last one listed is.
      const listed = new Set(this.entries.map((e) => e.commit));
      const unsaved = (await store.kept(`${this.options.sessionId()}/`)).filter((c) => !listed.has(c.commit));
      const commit = (unsaved.find((c) => c.subject.startsWith("hel turn checkpoint")) ?? unsaved[0])?.commit ?? this.entries.at(-1)?.commit;
      if (!commit) return [];
      const changes = (await store.differences(commit)).filter((c) => c.action !== "keep");
      if (changes.length > 0 && this.entries.at(-1)?.commit !== commit) {
        this.entries.push({ turn: lastTurn, kind: "end", commit, at: new Date().toISOString(), left_out: [] });
      }
      return changes;
    } catch {
      return [];
    }
  }

  /** Puts back the files of `entry`, first checkpointing the current state so the rewind can be undone. */
  async restore(entry: CheckpointEntry, turnNow: number): Promise<FileChange[]> {
    const store = await this.open();
    if (!store) throw new Error("file checkpoints are off (git is missing), so files cannot be put back");
    const before = await this.record("rewind", turnNow);
    if (!before) throw new Error("the files could not be checkpointed before the rewind, so it could not be undone; nothing was changed");
    return store.restore(entry.commit, { prefix: `${this.options.sessionId()}/`, before: before.commit });
  }

  /** The files turn `n` changed, from its checkpoints; null when it changed none (or they are gone). */
  async filesOf(n: number): Promise<string[] | null> {
    const start = this.entries.find((e) => e.kind === "turn" && e.turn === n);
    const end = this.entries.find((e) => e.kind === "end" && e.turn === n);
    const store = start && end ? await this.open() : null;
    if (!start || !end || !store) return null;
    return store.changedBetween(start.commit, end.commit).catch(() => null);
  }

  /**
   * What the session changed in the project, from its first checkpoint to now: every file, whether an
   * edit or a command changed it, across the session's processes; null when nothing was checkpointed.
   */
  async sinceStart(): Promise<ProjectChanges | null> {
    const first = this.entries.find((e) => e.kind === "turn");
    const store = first ? await this.open() : null;
    if (!first || !store) return null;
    const files = await Promise.all(
      (await store.differences(first.commit))
        .filter((c) => c.action !== "keep")
        .map(async ({ path }) => {
          const after = await readFile(join(this.options.projectDir, path), "utf8").catch(() => null);
          const before = await store.fileAt(first.commit, path);
          if ((before?.length ?? 0) > MAX_DIFF_FILE_BYTES || (after?.length ?? 0) > MAX_DIFF_FILE_BYTES) return { path, summary: "changed (too large to show as a diff)" };
          return { path, before, after };
        }),
    );
    return { files, note: "from the session's first file checkpoint: what commands changed is included" };
  }

  private async prune(): Promise<void> {
    const store = await this.open();
    if (!store) return;
    const oldest = this.turn - KEEP_TURNS;
    let dropped = this.entries.filter((e) => e.turn <= oldest).length;
    if (dropped === 0 && (await store.size()) <= this.options.maxBytes) return;
    if (dropped === 0) dropped = Math.max(1, Math.floor(this.entries.length / 4));
    this.entries.splice(0, dropped);
    const id = this.options.sessionId();
    await store.prune(`${id}/`, new Set(this.entries.map((e) => e.commit))).catch((error: Error) => this.options.warn(`could not prune checkpoints: ${error.message}`));
  }
}

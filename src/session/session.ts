// The session a run works in: a new one, or one resumed from its snapshot. Owns the conversation,
// the read_file cursors and the lease, and saves after every turn, cut short or not, with how it ended.
//
// A new session writes nothing until a turn ends with an answer of the model's in the conversation:
// the lease is taken then, just before the first save; a resumed session takes it at once, without
// waiting, and a held one ends the run (exit 3).
import { createHash } from "node:crypto";
import { join } from "node:path";
import { ArchiveIndex } from "../agent/context/archive-index.js";
import type { ChildTranscript } from "../agent/children/child-transcript.js";
import { StampCounter } from "../agent/stamps.js";
import type { AgentEvent } from "../agent/events.js";
import type { TodoItem } from "../agent/todo-list.js";
import { emptyTotals, sumTotals, type UsageTotals } from "../agent/usage.js";
import { CursorStore } from "../tools/cursors.js";
import type { Message, ToolDefinition } from "../wire/messages.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { ownDir } from "../fs/own-dir.js";
import { ByteWriter } from "../wire/byte-writer.js";
import { jsonWithMessages } from "../wire/serialize.js";
import type { ProcessGroup } from "../tools/types.js";
import { recordCommand } from "./command-records.js";
import { acquireLease, whileLeased, withStoreLock, type Lease } from "./lease.js";
import { newSessionId, sessionPaths } from "./paths.js";
import type { Meter } from "../agent/meter.js";
import type { CompactionState } from "../agent/context/compaction.js";
import type { RequestSettings } from "../agent/request.js";
import type { LastTurn, RequestConfig, RunRequestConfig, Snapshot, StoredEdit, Turn } from "./snapshot-format.js";
import { archiveStore } from "./archive-store.js";
import { requestSettings, SCHEMA_VERSION } from "./snapshot-format.js";
import { Checkpointing } from "./turn-checkpoints.js";
import { newTurn } from "./turns.js";
import { latestSessionId, resolveSessionId } from "./catalog.js";
import { loadSnapshotFile, saveSnapshot, type SnapshotIdentity } from "./snapshot-file.js";
import { SessionError } from "./errors.js";
import { removeLeftovers } from "./leftovers.js";

export interface StartOptions {
  projectDir: string;
  resume: string | null;
  continueLatest: boolean;
  /**
   * The user adopts the session named by `resume` even if this user's hel did not write it here
   * (`--resume <id> --trust`, signature.ts); its next save signs it. `-c` never takes such a session.
   */
  adopt?: boolean;
  systemPrompt: string;
  /** This run's request settings, given the resumed session's (null for a new session). */
  requestConfig(stored: RequestConfig | null): RunRequestConfig;
  warn(line: string): void;
  /** What this process has used so far (the usage ledger's figures), added to the stored session's. */
  usage(): UsageTotals;
  /** Past this size on disk, the oldest file checkpoints are pruned. */
  checkpointMaxBytes?: number;
  /** Values no file checkpoint may hold (the API key). */
  checkpointSecrets?: readonly string[];
}

export interface ActiveSession {
  readonly id: string;
  readonly dir: string;
  readonly messages: Message[];
  readonly cursors: CursorStore;
  /** The session's stamp counter: parent and children stamp from it. */
  readonly stamps: StampCounter;
  /** Spans that left the view (folded or compacted), and their files. */
  readonly archive: ArchiveIndex;
  /** Compactions that failed or did not shrink the view in a row, and whether hel gave up on them. */
  compaction: CompactionState;
  /** Delegations made so far, so child numbers keep counting across resumes. */
  readonly childCount: number;
  /**
   * The request settings this run uses: the flags', and for a resume the session's own where no flag
   * was given. The one record of them: what changes it is the next request's and the next save's.
   */
  readonly requestConfig: RunRequestConfig;
  /** The same record as the agent's requests read it. */
  readonly request: RequestSettings;
  /** How the resumed session's latest turn ended; null for a new session, or one saved before this was kept. */
  readonly resumedLastTurn: LastTurn | null;
  /** True once a snapshot of this session exists on disk. */
  readonly saved: boolean;
  /** True when the latest answer could not be saved (a failed write, or the lease was lost). */
  readonly lastSaveFailed: boolean;
  /** What the session's earlier processes used, as its snapshot keeps it. */
  readonly storedUsage: UsageTotals;
  /** The session's instructions so far, numbered. */
  readonly turns: readonly Turn[];
  /** What each edit changed, by the call that made it (for `sessions show` and an editor's replay). */
  readonly edits: readonly StoredEdit[];
  /** The project's files checkpointed before and after the turns that changed them. */
  readonly checkpointing: Checkpointing;
  /** The parent's todo list: the saved one, then each todo call's. */
  readonly todo: readonly TodoItem[];
  /** The tool list this run sends; compared with the snapshot's to decide whether its meter still holds. */
  setTools(tools: ToolDefinition[]): void;
  /** Reads the run's event stream; the promise it may return is a save in progress. */
  observe(event: AgentEvent): Promise<void> | void;
  saveChild(transcript: ChildTranscript): Promise<void>;
  /** Takes the session's lease before the first file is written into its directory (a spill, a save). */
  claim(): Promise<unknown>;
  /** Records a running command's group, so the session stays in use while it runs; resolves to what forgets it. */
  trackCommand(group: ProcessGroup): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export async function startSession(options: StartOptions): Promise<ActiveSession> {
  const { projectDir } = options;
  if (!options.resume && !options.continueLatest) {
    return new Session(options, null, [{ role: "system", content: options.systemPrompt }], null, null);
  }
  // Only resolving and leasing hold the store lock, so sessions resumed at once never wait on each
  // other's loads; the lease is held before the snapshot is read, so what is read is the latest.
  const { id, lease } = await withStoreLock(projectDir, async () => {
    const id = options.resume ? await resolveSessionId(projectDir, options.resume) : await latestSessionId(projectDir, (ids) => options.warn(passedOver(ids)));
    if (!id) throw new SessionError("this project has no saved session to continue — run hel without -c to start one", 2);
    return { id, lease: await acquireLease(projectDir, id) };
  });
  try {
    const loaded = await loadSnapshotFile(projectDir, id, { unsigned: options.adopt === true && options.resume !== null });
    const { identity, signed } = loaded;
    let { snapshot } = loaded;
    if (!signed) {
      // What the user adopts is what is on disk now: archive files the index names without a hash get one.
      snapshot = { ...snapshot, archive: await archiveStore(projectDir, id).withHashes(snapshot.archive) };
      options.warn(`adopting session ${id}, which hel did not write here (--trust): its next save signs it as hel's own`);
    }
    const changed = await archiveStore(projectDir, id).changed(snapshot.archive);
    if (changed.length > 0) {
      options.warn(`session ${id}: the archive of ${changed.join(", ")} was changed outside hel (or deleted); recall and ask will not serve ${changed.length === 1 ? "it" : "them"}`);
    }
    return new Session(options, id, withSystemPrompt(snapshot.messages, options.systemPrompt), { snapshot, identity }, lease);
  } catch (error) {
    await lease.release();
    throw error;
  }
}

function passedOver(ids: readonly string[]): string {
  const shown = ids.slice(0, 3).join(", ") + (ids.length > 3 ? `, and ${ids.length - 3} more` : "");
  const sessions = ids.length === 1 ? "a newer session" : `${ids.length} newer sessions`;
  return `-c passed over ${sessions} that hel did not write here (${shown}) — \`hel sessions ls\` marks them; \`hel --resume <id> --trust\` adopts one`;
}

/** The stored system message is replaced by this process's: rules and environment may have changed. */
function withSystemPrompt(messages: readonly Message[], systemPrompt: string): Message[] {
  const rest = messages[0]?.role === "system" ? messages.slice(1) : messages;
  return [{ role: "system", content: systemPrompt }, ...rest];
}

class Session implements ActiveSession {
  readonly messages: Message[];
  readonly cursors: CursorStore;
  readonly stamps: StampCounter;
  readonly archive: ArchiveIndex;
  compaction: CompactionState;
  childCount: number;
  saved: boolean;
  lastSaveFailed = false;
  readonly requestConfig: RunRequestConfig;
  readonly request: RequestSettings;
  readonly resumedLastTurn: LastTurn | null;
  private lastTurn: LastTurn | null = null;
  private meter: Meter;
  /** The usage of the processes before this one. */
  readonly storedUsage: UsageTotals;
  private tools: ToolDefinition[] = [];
  private readonly createdAt: string;
  private readonly pendingChildren: ChildTranscript[] = [];
  /** The hash of each transcript written, by its number: the snapshot keeps them (snapshot-format.ts). */
  private readonly childHashes: Map<number, string>;
  readonly edits: StoredEdit[];
  private lostWarned = false;
  readonly turns: Turn[];
  readonly checkpointing: Checkpointing;
  todo: readonly TodoItem[];
  /** Set by the parent's turn_start: its next user message is the instruction that opens a turn. */
  private instructionNext = false;
  private readonly stored: Snapshot | null;
  /** The snapshot file this process last read or wrote; a save replaces only that one. */
  private onDisk: SnapshotIdentity | null;
  #id: string | null;

  /** `id` null: a new session, whose id is made when first asked for (see `id`). */
  constructor(
    private readonly options: StartOptions,
    id: string | null,
    messages: Message[],
    loaded: { snapshot: Snapshot; identity: SnapshotIdentity } | null,
    private lease: Lease | null,
  ) {
    const stored = loaded?.snapshot ?? null;
    this.stored = stored;
    this.requestConfig = options.requestConfig(stored?.request_config ?? null);
    this.request = requestSettings(this.requestConfig);
    this.resumedLastTurn = stored?.last_turn ?? null;
    this.onDisk = loaded?.identity ?? null;
    this.#id = id;
    this.messages = messages;
    this.cursors = new CursorStore(stored?.cursors ?? {});
    this.stamps = new StampCounter(stored?.stamps ?? 0);
    this.archive = new ArchiveIndex([...(stored?.archive ?? [])], (entry) => archiveStore(this.options.projectDir, this.id).read(entry));
    this.compaction = stored?.compaction ?? { failures: 0, stopped: false };
    this.childCount = stored?.children ?? 0;
    this.childHashes = new Map((stored?.child_transcripts ?? []).map((c) => [c.number, c.sha256]));
    this.edits = stored?.edits ?? [];
    this.saved = stored !== null;
    this.meter = stored?.meter ?? { message_count: 0, input_tokens: 0 };
    this.storedUsage = stored?.usage ?? emptyTotals();
    this.createdAt = stored?.created_at ?? new Date().toISOString();
    this.turns = [...(stored?.turns ?? [])];
    this.todo = stored?.todo ?? [];
    this.checkpointing = new Checkpointing(
      { projectDir: options.projectDir, sessionId: () => this.id, warn: options.warn, maxBytes: options.checkpointMaxBytes ?? 1024 * 1024 * 1024, secrets: options.checkpointSecrets ?? [] },
      stored?.checkpoints ?? [],
    );
    lease?.onLost(() => this.warnLost());
  }

  // A new session's id is made on first use (the first save, spill or record), not at start:
  // making it loads node:crypto, which the first request need not wait for.
  get id(): string {
    return (this.#id ??= newSessionId());
  }

  get dir(): string {
    return sessionPaths(this.options.projectDir, this.id).dir;
  }

  setTools(tools: ToolDefinition[]): void {
    this.tools = tools;
    const stored = this.stored;
    if (!stored) return;
    const modelChanged = stored.request_config.model !== this.requestConfig.model;
    const toolsChanged = JSON.stringify(stored.tools) !== JSON.stringify(tools);
    if (modelChanged || toolsChanged) {
      const what = [
        modelChanged ? `model ${this.requestConfig.model} (was ${stored.request_config.model})` : "",
        toolsChanged ? `tools ${tools.map((t) => t.function.name).join(",") || "none"} (was ${stored.tools.map((t) => t.function.name).join(",") || "none"})` : "",
      ].filter(Boolean);
      this.options.warn(`resuming session ${this.id} with ${what.join(" and ")}`);
    }
    // The measured input size only describes these messages sent with this model and these tools.
    const promptChanged = stored.messages[0]?.content !== this.messages[0]?.content;
    if (modelChanged || toolsChanged || promptChanged) this.meter = { message_count: 0, input_tokens: 0 };
  }

  /**
   * A reader of the run's event stream: it keeps what each edit changed (for `sessions show`) and
   * saves when a parent turn ends (the archive's new spans, which the loop indexed, written first), however it ended: the loop leaves every tool call with its result,
   * so a turn cut short is a conversation that can be continued. Usage it asks the ledger.
   */
  observe(event: AgentEvent): Promise<void> | void {
    // An instruction sent again is the turn it already is.
    if (event.agent === "parent" && event.type === "turn_start" && !event.again) this.instructionNext = true;
    if (event.agent === "parent" && event.type === "message" && this.instructionNext) {
      const turn = newTurn(this.turns, event.message);
      if (turn) {
        this.instructionNext = false;
        this.turns.push(turn);
        this.checkpointing.startTurn(turn.n);
      }
    }
    if (event.agent === "parent" && event.type === "todo") this.todo = event.items;
    if (event.type === "tool_end" && event.edit) {
      this.edits.push({ call_id: event.callId, ...(event.delegation !== undefined ? { delegation: event.delegation } : {}), edit: event.edit });
    }
    if (event.type === "turn_end" && event.agent === "parent") {
      this.lastTurn = { exit_reason: event.exitReason, ...(event.error ? { error: event.error } : {}) };
      // A new session the model never answered (a bad key, no connection) holds nothing to go on from.
      if (!this.saved && !this.messages.some((m) => m.role === "assistant")) return;
      const meter = event.meter;
      return this.checkpointing.endTurn().then(() => this.saveAfterTurn(meter));
    }
  }

  private async saveAfterTurn(meter: Meter | null): Promise<void> {
    if (meter) this.meter = meter;
    this.lastSaveFailed = true;
    if (this.lease?.lost) return this.warnLost();
    try {
      const lease = await this.claim();
      // Transcripts and archive files first: a snapshot never names a file that is not on disk.
      await this.flushChildren(lease);
      await this.flushArchive(lease);
      const snapshot = this.snapshot();
      this.onDisk = await saveSnapshot(this.options.projectDir, snapshot, { lease, expected: this.onDisk });
      this.saved = true;
      this.lastSaveFailed = false;
      // What a process killed mid-save left is no part of the session the snapshot now describes.
      await removeLeftovers(this.options.projectDir, sessionPaths(this.options.projectDir, this.id), lease, snapshot.archive).catch(() => undefined);
    } catch (error) {
      // Found out while saving that another process took the session: that is the one line to say.
      if (this.lease?.lost) return this.warnLost();
      // The conversation stays in memory; the next turn saves the whole state again.
      const message = error instanceof Error ? error.message : String(error);
      this.options.warn(message.includes("kept in memory") ? message : `${message}; the conversation is kept in memory and saved after the next turn`);
    }
  }

  async saveChild(transcript: ChildTranscript): Promise<void> {
    this.childCount = Math.max(this.childCount, transcript.number);
    this.pendingChildren.push(transcript);
    if (!this.saved) return;
    await this.flushChildren().catch((error: Error) => (this.lease?.lost ? this.warnLost() : this.options.warn(`could not save subagent transcript: ${error.message}`)));
  }

  /** Takes the lease of a new session, the first time anything is written into its directory. */
  async claim(): Promise<Lease> {
    if (!this.lease) {
      this.lease = await acquireLease(this.options.projectDir, this.id, { create: true });
      this.lease.onLost(() => this.warnLost());
    }
    return this.lease;
  }

  async trackCommand(group: ProcessGroup): Promise<() => Promise<void>> {
    await this.claim();
    return recordCommand(this.dir, group);
  }

  async close(): Promise<void> {
    await this.lease?.release();
  }

  // Transcripts and archive files are fenced by the lease like the snapshot: renamed into place only
  // while this process still holds the session.
  private async flushChildren(lease?: Lease): Promise<void> {
    if (this.pendingChildren.length === 0) return;
    const commit = whileLeased(this.options.projectDir, lease ?? (await this.claim()), () => this.notSaved());
    const dir = sessionPaths(this.options.projectDir, this.id).children;
    await ownDir(this.options.projectDir, dir, true);
    while (this.pendingChildren.length > 0) {
      const child = this.pendingChildren[0]!;
      // Exactly JSON.stringify(child); a resumed parent's messages in it are written from their bytes.
      const bytes = jsonWithMessages(child, new ByteWriter());
      await writeFileAtomic(join(dir, `${child.number}.json`), bytes, { commit });
      this.childHashes.set(child.number, createHash("sha256").update(bytes).digest("hex"));
      this.pendingChildren.shift();
    }
  }

  private async flushArchive(lease: Lease): Promise<void> {
    const commit = whileLeased(this.options.projectDir, lease, () => this.notSaved());
    const store = archiveStore(this.options.projectDir, this.id);
    for (const file of [...this.archive.pending()]) {
      this.archive.written(file.handle, await store.write(file, commit));
    }
  }

  private notSaved(): SessionError {
    return new SessionError(`session ${this.id} was not saved: its lease was lost, another hel process may be using it`, 1);
  }

  private snapshot(): Snapshot {
    return {
      schema_version: SCHEMA_VERSION,
      session_id: this.id,
      cwd: this.options.projectDir,
      created_at: this.createdAt,
      updated_at: new Date().toISOString(),
      request_config: this.requestConfig,
      meter: this.meter,
      usage: sumTotals(this.storedUsage, this.options.usage()),
      children: this.childCount,
      stamps: this.stamps.last,
      compaction: this.compaction,
      archive: [...this.archive.entries],
      cursors: this.cursors.toJSON(),
      tools: this.tools,
      ...(this.edits.length > 0 ? { edits: this.edits } : {}),
      ...(this.lastTurn ? { last_turn: this.lastTurn } : {}),
      ...(this.turns.length > 0 ? { turns: this.turns } : {}),
      ...(this.checkpointing.entries.length > 0 ? { checkpoints: this.checkpointing.entries } : {}),
      ...(this.stored?.forked_from ? { forked_from: this.stored.forked_from } : {}),
      ...(this.childHashes.size > 0 ? { child_transcripts: [...this.childHashes].map(([number, sha256]) => ({ number, sha256 })) } : {}),
      ...(this.todo.length > 0 ? { todo: [...this.todo] } : {}),
      messages: this.messages,
    };
  }

  private warnLost(): void {
    if (this.lostWarned) return;
    this.lostWarned = true;
    this.options.warn(`lost the lease on session ${this.id} — another hel process may have taken it over; hel stops saving this session, so its latest turn is not saved`);
  }
}

// What the interactive prompt's commands may read and change of the conversation running: its model
// and effort (written to the session's request_config, which the next request is built from and a
// resume finds), the files it changed, what it has spent, its messages, and the project's sessions.
import type { ProjectChanges } from "../changes/unified-diff.js";
import { defaultMaxTokens } from "../agent/request.js";
import type { UsageReport } from "../agent/usage-ledger.js";
import { listSessions, resolveSessionId, type SessionSummary } from "../session/catalog.js";
import type { FileChange } from "../changes/checkpoints.js";
import { forkSession } from "../session/fork.js";
import type { ActiveSession } from "../session/session.js";
import type { Turn } from "../session/snapshot-format.js";
import { checkpointBefore } from "../session/turn-checkpoints.js";
import type { RunOptions } from "../settings/run-options.js";
import type { Effort, Message } from "../wire/messages.js";
import type { PlanMode } from "../agent/plan-mode.js";

export interface ConversationControls {
  readonly model: string;
  readonly effort: Effort;
  setModel(model: string): void;
  /** The ids of the models the API lists (asked once, again after a failure), or why they could not be had. */
  listedModels(): Promise<{ ids: string[] } | { error: string }>;
  /** The models the price table prices. */
  readonly pricedModels: readonly string[];
  setEffort(effort: Effort): void;
  /** The project's changes since the session began in this process. */
  changes(): Promise<ProjectChanges>;
  /** What this process has spent in the session. */
  usage(): UsageReport;
  /** --max-cost, in US dollars; null: no limit. */
  readonly maxCost: number | null;
  messages(): readonly Message[];
  /** The session's id, once it is saved. */
  sessionId(): string | null;
  /** The project's saved sessions, newest first. */
  sessions(): Promise<SessionSummary[]>;
  /** A full session id from what the user typed; throws a one-line error when there is none. */
  resolveSession(idOrPrefix: string): Promise<string>;
  /** Compacts the conversation now, keeping `focus` in mind; the conversation's size in tokens when it is too small to gain, else null. */
  compact(focus: string): Promise<number | null>;
  /** The session's turns, and the files a turn changed (null: none, or not known). */
  turns(): readonly Turn[];
  filesOf(turn: number): Promise<string[] | null>;
  /**
   * Plan mode (agent/plan-mode.ts): on with --plan, switched between instructions by /plan, Shift+Tab
   * or ACP's session mode. Not saved: a resumed session plans only when asked again.
   */
  readonly plan: PlanMode;
  /** Puts the project's files back to before `turn` (checkpointing them first); what it changed. */
  rewindFiles(turn: number): Promise<FileChange[]>;
  /** A fork of the saved session with the turns before `turn`; its id. */
  forkBefore(turn: number): Promise<string>;
}

/** What the controls are made from: the conversation's session and project, and the parts it assembled. */
export interface ControlsDeps extends Pick<ConversationControls, "changes" | "usage" | "compact" | "listedModels" | "pricedModels" | "plan"> {
  session: ActiveSession;
  projectDir: string;
  options: Pick<RunOptions, "maxOutputTokens" | "maxCost">;
}

export function conversationControls(deps: ControlsDeps): ConversationControls {
  const { session, projectDir: dir, options, ...parts } = deps;
  // The session's one record of its request settings.
  const { requestConfig } = session;
  // Set by --max-output-tokens; otherwise the limit follows the effort.
  const fixedMaxTokens = options.maxOutputTokens !== null;
  return {
    ...parts,
    maxCost: options.maxCost,
    messages: () => session.messages,
    sessionId: () => (session.saved ? session.id : null),
    sessions: () => listSessions(dir),
    resolveSession: (id) => resolveSessionId(dir, id),
    turns: () => session.turns,
    filesOf: (turn) => session.checkpointing.filesOf(turn),
    rewindFiles: async (turn) => {
      const target = checkpointBefore(session.checkpointing.entries, turn);
      return target ? session.checkpointing.restore(target, session.turns.length) : [];
    },
    forkBefore: async (turn) => (await forkSession(dir, session.id, turn - 1)).id,
    get model() {
      return requestConfig.model;
    },
    get effort() {
      return requestConfig.effort;
    },
    setModel(model) {
      requestConfig.model = model;
    },
    setEffort(effort) {
      requestConfig.effort = effort;
      if (!fixedMaxTokens) requestConfig.max_output_tokens = defaultMaxTokens(effort);
    },
  };
}

// What the interactive prompt's commands may read and change of the conversation running: its model
// and effort (applied from the next request on, and kept in the session's request_config so a resume
// finds them), the files it changed, what it has spent, its messages, and the project's sessions.
import type { ProjectChanges } from "../changes/unified-diff.js";
import type { RequestConfig as AgentRequest } from "../agent/request.js";
import { defaultMaxTokens } from "../agent/request.js";
import type { UsageReport } from "../agent/usage-ledger.js";
import type { SessionSummary } from "../session/catalog.js";
import type { FileChange } from "../changes/checkpoints.js";
import type { RequestConfig, Turn } from "../session/snapshot.js";
import type { Effort, Message } from "../wire/messages.js";

export interface ConversationControls {
  readonly model: string;
  readonly effort: Effort;
  setModel(model: string): void;
  setEffort(effort: Effort): void;
  /** The project's changes since the session began in this process. */
  changes(): Promise<ProjectChanges>;
  /** What this process has spent in the session. */
  usage(): UsageReport;
  messages(): readonly Message[];
  /** The session's id, once it is saved. */
  sessionId(): string | null;
  /** The project's saved sessions, newest first. */
  sessions(): Promise<SessionSummary[]>;
  /** A full session id from what the user typed; throws a one-line error when there is none. */
  resolveSession(idOrPrefix: string): Promise<string>;
  /** Compacts the conversation now, keeping `focus` in mind; false when there was nothing to compact. */
  compact(focus: string): Promise<boolean>;
  /** The session's turns, and the files a turn changed (null: none, or not known). */
  turns(): readonly Turn[];
  filesOf(turn: number): Promise<string[] | null>;
  /** Puts the project's files back to before `turn` (checkpointing them first); what it changed. */
  rewindFiles(turn: number): Promise<FileChange[]>;
  /** A fork of the saved session with the turns before `turn`; its id. */
  forkBefore(turn: number): Promise<string>;
}

export interface ControlsDeps extends Omit<ConversationControls, "model" | "effort" | "setModel" | "setEffort"> {
  /** What the next request is built from. */
  request: AgentRequest;
  /** What the session's snapshot keeps. */
  requestConfig: RequestConfig;
  /** Set by --max-output-tokens; otherwise the limit follows the effort. */
  fixedMaxTokens: boolean;
}

export function conversationControls(deps: ControlsDeps): ConversationControls {
  const { request, requestConfig, fixedMaxTokens, ...rest } = deps;
  return {
    ...rest,
    get model() {
      return request.model;
    },
    get effort() {
      return request.effort;
    },
    setModel(model) {
      request.model = requestConfig.model = model;
    },
    setEffort(effort) {
      request.effort = requestConfig.effort = effort;
      if (!fixedMaxTokens) request.maxTokens = requestConfig.max_output_tokens = defaultMaxTokens(effort);
    },
  };
}

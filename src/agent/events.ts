// The one stream of events the agent loop emits. The terminal renderer, `--json` output, the run
// records and the session saver all read this stream (event-bus.ts); nothing else reports what the
// loop did.
import type { FileEdit } from "../changes/file-edit.js";
import type { HookEvent } from "../hooks/hook-config.js";
import type { JobEvent } from "../tools/command/jobs.js";
import type { ToolDetails } from "../tools/types.js";
import type { ChatRequest, FinishReason, Message, Usage } from "../wire/messages.js";
import type { ArchiveFile } from "./archive.js";
import type { Meter } from "./meter.js";
import type { TodoItem } from "./todo-list.js";
import type { UsageTotals } from "./usage.js";

export type AgentRole = "parent" | "child";
/**
 * `token_budget` ends only a child: the parent has no token budget. `empty`: the model answered
 * nothing twice; `budget`: the next request would have taken the session's spend past --max-cost.
 */
export const EXIT_REASONS = ["completed", "max_steps", "length", "error", "aborted", "token_budget", "empty", "budget"] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];
/**
 * What hel mended in an answer DeepSeek got wrong: tool calls written as markup, arguments that are
 * not JSON, a call cut by the output limit (sent again), a repeated call not run, an empty answer
 * (asked again).
 */
export const REPAIR_KINDS = ["markup", "arguments", "length", "storm", "empty"] as const;
export type RepairKind = (typeof REPAIR_KINDS)[number];
/** What a child was started for: a delegate_task, review_changes or ask call (children/kinds.ts). */
export const CHILD_KINDS = ["delegate", "review", "ask"] as const;
export type ChildKind = (typeof CHILD_KINDS)[number];
/** How a delegate child's messages are built from its parent's (see children/child-messages.ts). */
export const DELEGATE_MODES = ["full", "no-tools", "task-only"] as const;
export type DelegateMode = (typeof DELEGATE_MODES)[number];

/** Which agent an event comes from: the parent, or the child of delegation number n. */
export interface AgentRef {
  agent: AgentRole;
  delegation?: number;
}

export type AgentEvent = AgentRef &
  /** `again`: the instruction the conversation ends with, unanswered, sent again (it is not added twice). */
  (
    | { type: "turn_start"; instruction: string; again?: true }
    /** A message joined the agent's conversation: the instruction, an answer, a tool result. */
    | { type: "message"; message: Message }
    | { type: "request"; step: number; body: ChatRequest; attempt: number }
    | { type: "retry"; attempt: number; delayMs: number; reason: string; status: number }
    | { type: "reasoning_delta"; text: string }
    | { type: "text_delta"; text: string }
    | {
        type: "response";
        step: number;
        status: number;
        usage: Usage | undefined;
        finishReason: FinishReason | null;
        durationMs: number;
        error?: string;
      }
    /**
     * A span left the view and went to the archive (`file`): folded by the model, or compacted. The
     * view was rewritten from index `start` on; the token figures are the view's size around it.
     */
    | { type: "fold" | "compaction"; file: ArchiveFile; start: number; tokensBefore: number; tokensAfter: number }
    /** Facts kept from earlier sessions were appended to the instruction as its `[memory]` block (memory-block.ts); `tokens`: the block's size. */
    | { type: "memory_recall"; facts: { id: string; scope: "project" | "user"; text: string }[]; tokens: number }
    /** A compaction failed or did not shrink the view; `stopped`: hel compacts no more in this session. */
    | { type: "compaction_failed"; reason: string; stopped: boolean }
    /** The answer of request `step` was mended (`kind`); `detail` says what was done, in a few words. */
    | { type: "repair"; step: number; kind: RepairKind; detail: string }
    | { type: "tool_start"; callId: string; name: string; arguments: string }
    /**
     * Output of a running tool (a command's, cleaned and redacted) for a live view, a few times a second:
     * what came since the last one, or its last lines after `skippedBytes` left out. The result is in tool_end.
     */
    | { type: "tool_output"; callId: string; name: string; text: string; skippedBytes: number }
    /** `details`: how the call ended, for readers (a command's exit code, a search's counts); the model gets `result`. */
    | { type: "tool_end"; callId: string; name: string; isError: boolean; result: string; edit?: FileEdit; details?: ToolDetails }
    /**
     * One of the user's hooks ran for this agent: its exit code (null when it was ended or died of a
     * signal), whether its timeout ended it, and what it wrote on stderr (cleaned, bounded, masked).
     */
    | { type: "hook"; event: HookEvent; command: string; exitCode: number | null; timedOut: boolean; stderr: string }
    /** The agent's todo list, replaced whole by a `todo` call (todo.ts); a child's is its own. */
    | { type: "todo"; items: TodoItem[] }
    /** `agentName`: the named agent (children/named-agent.ts) the delegate_task call chose. */
    | { type: "delegation_start"; number: number; kind: ChildKind; mode: DelegateMode | null; agentName?: string; task: string }
    | {
        type: "delegation_end";
        number: number;
        kind: ChildKind;
        /** How the child's messages were built from the parent's; null for a review or a question, which are not delegations. */
        mode: DelegateMode | null;
        agentName?: string;
        task: string;
        answer: string | null;
        exitReason: ExitReason;
        toolCalls: { name: string; arguments: string }[];
        usage: UsageTotals;
      }
    /** A background job (run_command with background) started, or ended: by itself, or by job_kill (`killed`). */
    | JobEvent
    | {
        type: "turn_end";
        answer: string | null;
        exitReason: ExitReason;
        error?: string;
        usage: UsageTotals;
        /** The conversation's size in input tokens: measured by the last request, estimated since. */
        contextTokens: number;
        /** What the last answered request measured, for the next turn's estimate; null if none was. */
        meter: Meter | null;
        /** The answer's value, when --json-schema shaped it and it fit. */
        structured?: unknown;
      }
  );

export type EventSink = (event: AgentEvent) => void;

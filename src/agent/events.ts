// The one stream of events the agent loop emits. The terminal renderer, `--json` output, the run
// records and the session saver all read this stream (event-bus.ts); nothing else reports what the
// loop did.
import type { ChatRequest, FinishReason, Message, Usage } from "../wire/messages.js";
import type { ArchiveFile } from "./archive.js";
import type { Meter } from "./meter.js";
import type { UsageTotals } from "./usage.js";

export type AgentRole = "parent" | "child";
export const EXIT_REASONS = ["completed", "max_steps", "length", "error", "aborted"] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

/** Which agent an event comes from: the parent, or the child of delegation number n. */
export interface AgentRef {
  agent: AgentRole;
  delegation?: number;
}

export type AgentEvent = AgentRef &
  (
    | { type: "turn_start"; instruction: string }
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
    /** A compaction failed or did not shrink the view; `stopped`: hel compacts no more in this session. */
    | { type: "compaction_failed"; reason: string; stopped: boolean }
    | { type: "tool_start"; callId: string; name: string; arguments: string }
    | { type: "tool_end"; callId: string; name: string; isError: boolean; result: string }
    | { type: "delegation_start"; number: number; mode: string; task: string }
    | {
        type: "delegation_end";
        number: number;
        mode: string;
        task: string;
        answer: string | null;
        exitReason: ExitReason;
        toolCalls: { name: string; arguments: string }[];
        usage: UsageTotals;
      }
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
      }
  );

export type EventSink = (event: AgentEvent) => void;

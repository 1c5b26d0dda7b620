// `--json-events`: the event stream for editors and scripts, one JSON object per line on stdout as it
// happens — requests, reasoning and answer text as they stream, tool calls with their results (and an
// edit's diff, a command's exit code, a search's counts), subagents' events tagged with their
// delegation, and the end of each turn. The shapes below are a contract (documented in the README):
// add fields, never rename them.
import { ContextEventSchema, contextEventOf } from "../../agent/context/context-event.js";
import { CHILD_KINDS, EXIT_REASONS, REPAIR_KINDS, type AgentEvent } from "../../agent/events.js";
import type { UsageLedger } from "../../agent/usage-ledger.js";
import { HOOK_EVENTS } from "../../hooks/hook-config.js";
import { FACT_SCOPES } from "../../memory/fact.js";
import { TodoListSchema } from "../../agent/todo-list.js";
import { UsageTotalsSchema } from "../../agent/usage.js";
import { FileEditSchema } from "../../changes/file-edit.js";
import type { ToolDetails } from "../../tools/types.js";
import { MessageSchema, UsageSchema, type Message } from "../../wire/messages.js";
import { z } from "../../zod.js";

const count = z.number().int().nonnegative();
const ref = {
  agent: z.enum(["parent", "child"]),
  /** The subagent's delegation number; only on a child's events. */
  delegation: count.optional(),
};
const exitReason = z.enum(EXIT_REASONS);
/** `agent_name`: the named agent a delegation went to, when it went to one. */
const child = { number: count, kind: z.enum(CHILD_KINDS), mode: z.string().nullable(), agent_name: z.string().optional() };
/** How a call ended, beside its result: a command's exit and time, a search page's counts. */
const ToolDetailsSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("command"),
    /** null when a signal ended the command, or it timed out or was interrupted. */
    exit_code: z.number().int().nullable(),
    signal: z.string().nullable(),
    duration_ms: count,
    timed_out: z.boolean(),
    interrupted: z.boolean(),
    /** Only when it ran outside the sandbox its access gives: by allow rules, or the user's approval (once, always, remembered from an earlier always). */
    outside: z.object({ by: z.enum(["rule", "once", "always", "remembered"]), rules: z.array(z.string()).optional(), justification: z.string().optional() }).optional(),
  }),
  z.object({ kind: z.literal("search"), matches: count, unit: z.enum(["line", "file"]), files: count, more: z.boolean() }),
  /** An escalated command the user refused to run outside the sandbox: it did not run. */
  z.object({ kind: z.literal("refusal"), justification: z.string() }),
  /** An isolated subagent's worktree: the files it changed and how they came into the project's tree; kept: the worktree and branch are still there. */
  z.object({
    kind: z.literal("merge"),
    worktree: z.string(),
    branch: z.string(),
    status: z.enum(["applied", "no changes", "conflict", "not merged"]),
    files: z.array(z.object({ path: z.string(), added: count, removed: count, binary: z.boolean().optional() })),
    /** Each side's conflicting hunks, a few and bounded; truncated: some were left out. */
    conflicts: z.array(z.object({ path: z.string(), kind: z.enum(["text", "binary", "mode", "deleted"]), ours: z.array(z.string()), theirs: z.array(z.string()), truncated: z.boolean() })),
    kept: z.boolean(),
  }),
]);

export const JsonEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("turn_start"), ...ref, instruction: z.string() }),
  z.object({ type: z.literal("request"), ...ref, step: count, attempt: count }),
  z.object({ type: z.literal("retry"), ...ref, attempt: count, delay_ms: count, reason: z.string(), status: count }),
  z.object({ type: z.literal("reasoning"), ...ref, text: z.string() }),
  z.object({ type: z.literal("text"), ...ref, text: z.string() }),
  z.object({
    type: z.literal("response"),
    ...ref,
    step: count,
    status: count,
    finish_reason: z.string().nullable(),
    usage: UsageSchema.nullable(),
    duration_ms: count,
    error: z.string().optional(),
  }),
  z.object({ type: z.literal("message"), ...ref, message: MessageSchema }),
  /** A fold, a compaction, or a compaction that failed: what left the view, and the tokens before and after. */
  z.object({ type: z.literal("context"), ...ref, change: ContextEventSchema }),
  /** An answer hel mended: tool calls written as text, arguments not JSON, a cut call sent again, a repeated call not run, an empty answer asked again. */
  z.object({ type: z.literal("repair"), ...ref, step: count, kind: z.enum(REPAIR_KINDS), detail: z.string() }),
  /** Facts kept from earlier sessions, appended to the instruction as its [memory] block. */
  z.object({ type: z.literal("memory_recall"), ...ref, facts: z.array(z.object({ id: z.string(), scope: z.enum(FACT_SCOPES), text: z.string() })), tokens: count }),
  z.object({ type: z.literal("tool_start"), ...ref, call_id: z.string(), name: z.string(), arguments: z.string() }),
  z.object({ type: z.literal("tool_output"), ...ref, call_id: z.string(), name: z.string(), text: z.string(), skipped_bytes: count }),
  z.object({ type: z.literal("tool_end"), ...ref, call_id: z.string(), name: z.string(), is_error: z.boolean(), result: z.string(), edit: FileEditSchema.optional(), details: ToolDetailsSchema.optional() }),
  /** One of the user's hooks ran: exit 2 blocked, another code or a timeout was a warning. */
  z.object({ type: z.literal("hook"), ...ref, event: z.enum(HOOK_EVENTS), command: z.string(), exit_code: z.number().int().nullable(), timed_out: z.boolean(), stderr: z.string() }),
  /** The agent's todo list, replaced whole by a todo call; a child's (with its delegation) is its own. */
  z.object({ type: z.literal("todo"), ...ref, items: TodoListSchema }),
  z.object({ type: z.literal("delegation_start"), ...ref, ...child, task: z.string() }),
  z.object({ type: z.literal("delegation_end"), ...ref, ...child, exit_reason: exitReason, answer: z.string().nullable(), usage: UsageTotalsSchema }),
  /** A background job started, or ended (`killed`: by job_kill); a job hel's end ends has no job_end. */
  z.object({ type: z.literal("job_start"), ...ref, job: count, command: z.string() }),
  z.object({ type: z.literal("job_end"), ...ref, job: count, command: z.string(), exit_code: z.number().int().nullable(), signal: z.string().nullable(), killed: z.boolean() }),
  z.object({
    type: z.literal("turn_end"),
    ...ref,
    /** On the parent's turn_end: the session to resume. */
    session_id: z.string().optional(),
    answer: z.string().nullable(),
    exit_reason: exitReason,
    error: z.string().optional(),
    /** The parent's: every request of the instruction, its subagents' included. */
    usage: UsageTotalsSchema,
    context_tokens: count,
    /** With --json-schema, the answer's value once it fit. */
    structured_output: z.unknown().optional(),
  }),
]);
type ParsedJsonEvent = z.infer<typeof JsonEventSchema>;
/** As parsed, but a message event carries the conversation's own (read-only) message. */
export type JsonEvent = ParsedJsonEvent extends infer E ? (E extends { type: "message" } ? Omit<E, "message"> & { message: Message } : E) : never;

/** `ledger` must read each event before this reader does: the parent's turn_end carries its totals. */
export function createJsonEvents(write: (line: string) => void, sessionId: () => string, ledger: UsageLedger): (event: AgentEvent) => void {
  return (event) => {
    write(JSON.stringify(toJsonEvent(event, ledger.instruction().total, sessionId)) + "\n");
  };
}

function toJsonEvent(event: AgentEvent, instructionTotals: z.infer<typeof UsageTotalsSchema>, sessionId: () => string): JsonEvent {
  const ref = { agent: event.agent, ...(event.delegation !== undefined ? { delegation: event.delegation } : {}) };
  switch (event.type) {
    case "turn_start":
      return { type: "turn_start", ...ref, instruction: event.instruction };
    case "request":
      return { type: "request", ...ref, step: event.step, attempt: event.attempt };
    case "retry":
      return { type: "retry", ...ref, attempt: event.attempt, delay_ms: event.delayMs, reason: event.reason, status: event.status };
    case "reasoning_delta":
      return { type: "reasoning", ...ref, text: event.text };
    case "text_delta":
      return { type: "text", ...ref, text: event.text };
    case "response":
      return {
        type: "response",
        ...ref,
        step: event.step,
        status: event.status,
        finish_reason: event.finishReason,
        usage: event.usage ?? null,
        duration_ms: Math.round(event.durationMs),
        ...(event.error ? { error: event.error } : {}),
      };
    case "message":
      return { type: "message", ...ref, message: event.message };
    case "fold":
    case "compaction":
    case "compaction_failed":
      return { type: "context", ...ref, change: contextEventOf(event)! };
    case "repair":
      return { type: "repair", ...ref, step: event.step, kind: event.kind, detail: event.detail };
    case "memory_recall":
      return { type: "memory_recall", ...ref, facts: event.facts, tokens: event.tokens };
    case "tool_start":
      return { type: "tool_start", ...ref, call_id: event.callId, name: event.name, arguments: event.arguments };
    case "job_start":
      return { type: "job_start", ...ref, job: event.job, command: event.command };
    case "job_end":
      return { type: "job_end", ...ref, job: event.job, command: event.command, exit_code: event.exitCode, signal: event.signal, killed: event.killed };
    case "tool_output":
      return { type: "tool_output", ...ref, call_id: event.callId, name: event.name, text: event.text, skipped_bytes: event.skippedBytes };
    case "tool_end":
      return {
        type: "tool_end",
        ...ref,
        call_id: event.callId,
        name: event.name,
        is_error: event.isError,
        result: event.result,
        ...(event.edit ? { edit: event.edit } : {}),
        ...(event.details ? { details: detailsJson(event.details) } : {}),
      };
    case "hook":
      return { type: "hook", ...ref, event: event.event, command: event.command, exit_code: event.exitCode, timed_out: event.timedOut, stderr: event.stderr };
    case "todo":
      return { type: "todo", ...ref, items: event.items };
    case "delegation_start":
    case "delegation_end": {
      const named = { number: event.number, kind: event.kind, mode: event.mode, ...(event.agentName ? { agent_name: event.agentName } : {}) };
      if (event.type === "delegation_start") return { type: "delegation_start", ...ref, ...named, task: event.task };
      return { type: "delegation_end", ...ref, ...named, exit_reason: event.exitReason, answer: event.answer, usage: event.usage };
    }
    case "turn_end": {
      const parent = event.agent === "parent";
      return {
        type: "turn_end",
        ...ref,
        ...(parent ? { session_id: sessionId() } : {}),
        answer: event.answer,
        exit_reason: event.exitReason,
        ...(event.error ? { error: event.error } : {}),
        usage: parent ? instructionTotals : event.usage,
        context_tokens: event.contextTokens,
        ...("structured" in event ? { structured_output: event.structured } : {}),
      };
    }
  }
}

function detailsJson(details: ToolDetails): z.infer<typeof ToolDetailsSchema> {
  if (details.kind === "search" || details.kind === "refusal" || details.kind === "merge") return details;
  return {
    kind: "command",
    exit_code: details.exitCode,
    signal: details.signal,
    duration_ms: Math.round(details.durationMs),
    timed_out: details.timedOut,
    interrupted: details.interrupted,
    ...(details.outside ? { outside: details.outside } : {}),
  };
}

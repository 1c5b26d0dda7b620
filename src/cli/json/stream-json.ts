// `--output-format stream-json` and `--output-format json`: what `claude -p --output-format stream-json
// --verbose` (and `json`) print, so that scripts written for Claude Code read hel unchanged. For each
// instruction: a `system` `init` line (the session, the folder, the model, the tools offered), then
// each answer of the model as an `assistant` message of content blocks (thinking, text, tool_use), each
// tool's result as a `user` message of `tool_result` blocks, a subagent's with the id of the call that
// started it in `parent_tool_use_id`, and last a `result` line with the answer, the session, the cost
// and the usage in Anthropic's words (input_tokens are the uncached ones, cache_read_input_tokens the
// cached). `json` prints only the result line. The shapes below are a contract
// (test/contracts/stream-json.txt): add fields, never rename them.
import { randomUUID } from "node:crypto";
import type { AgentEvent, ExitReason } from "../../agent/events.js";
import { SHAPE_MISMATCH } from "../../agent/loop/loop.js";
import { unstamped } from "../../agent/stamps.js";
import { traitsOf } from "../../agent/toolbox.js";
import { byAgent, type UsageLedger } from "../../agent/usage-ledger.js";
import type { FinishReason, Message } from "../../wire/messages.js";
import { monotonicMs } from "../../clock.js";
import { z } from "../../zod.js";

const count = z.number().int().nonnegative();
const common = { uuid: z.string(), session_id: z.string() };
/** Anthropic's usage: input_tokens are the uncached prompt tokens (DeepSeek's cache misses); hel writes no cache. */
const UsageSchema = z.object({
  input_tokens: count,
  cache_creation_input_tokens: count,
  cache_read_input_tokens: count,
  output_tokens: count,
});
const ContentBlockSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({ type: z.literal("tool_result"), tool_use_id: z.string(), content: z.string(), is_error: z.boolean() }),
]);
const STOP_REASONS = ["end_turn", "tool_use", "max_tokens", "refusal"] as const;
const RESULT_SUBTYPES = ["success", "error_max_turns", "error_during_execution", "error_max_budget_usd", "error_max_structured_output_retries"] as const;

export const StreamJsonLineSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("system"),
    subtype: z.literal("init"),
    ...common,
    cwd: z.string(),
    model: z.string(),
    tools: z.array(z.string()),
    mcp_servers: z.array(z.object({ name: z.string(), status: z.string() })),
    /** hel's --access in Claude's words: read-only is default (nothing changes unasked), edit acceptEdits, full bypassPermissions. */
    permissionMode: z.enum(["default", "acceptEdits", "bypassPermissions"]),
    apiKeySource: z.literal("user"),
    slash_commands: z.array(z.string()),
    output_style: z.literal("default"),
  }),
  z.object({
    type: z.literal("assistant"),
    ...common,
    /** The tool call that started the subagent this message is from; null for the parent's. */
    parent_tool_use_id: z.string().nullable(),
    message: z.object({
      id: z.string(),
      type: z.literal("message"),
      role: z.literal("assistant"),
      model: z.string(),
      content: z.array(ContentBlockSchema),
      stop_reason: z.enum(STOP_REASONS).nullable(),
      stop_sequence: z.null(),
      usage: UsageSchema,
    }),
  }),
  z.object({
    type: z.literal("user"),
    ...common,
    parent_tool_use_id: z.string().nullable(),
    message: z.object({ role: z.literal("user"), content: z.array(ContentBlockSchema) }),
  }),
  z.object({
    type: z.literal("result"),
    subtype: z.enum(RESULT_SUBTYPES),
    ...common,
    is_error: z.boolean(),
    duration_ms: count,
    /** The time spent waiting on the model, every agent's requests added up. */
    duration_api_ms: count,
    /** The parent's model requests. */
    num_turns: count,
    /** The final answer; only on success. */
    result: z.string().optional(),
    stop_reason: z.enum(STOP_REASONS).nullable(),
    /** 0 when hel has no price for the model. */
    total_cost_usd: z.number().nonnegative(),
    usage: UsageSchema,
    modelUsage: z.record(z.string(), z.object({ inputTokens: count, outputTokens: count, cacheReadInputTokens: count, cacheCreationInputTokens: count, webSearchRequests: count, costUSD: z.number().nonnegative() })),
    permission_denials: z.array(z.object({ tool_name: z.string(), tool_use_id: z.string(), tool_input: z.unknown() })),
    /** With --json-schema, the answer's value. */
    structured_output: z.unknown().optional(),
    /** What went wrong; only on an error. */
    errors: z.array(z.string()).optional(),
  }),
]);
export type StreamJsonLine = z.infer<typeof StreamJsonLineSchema>;
type Usage = z.infer<typeof UsageSchema>;
type StopReason = (typeof STOP_REASONS)[number];

export interface StreamJsonSettings {
  /** `json`: only the result line. */
  format: "json" | "stream-json";
  cwd: string;
  access: "read-only" | "edit" | "full";
  sessionId(): string;
  /** Read before this reader reads an event: a result line carries the instruction's totals. */
  ledger: UsageLedger;
}

const PERMISSION_MODES = { "read-only": "default", edit: "acceptEdits", full: "bypassPermissions" } as const;

export function createStreamJson(write: (line: string) => void, settings: StreamJsonSettings): (event: AgentEvent) => void {
  const { ledger, sessionId } = settings;
  const line = (value: StreamJsonLine) => {
    if (settings.format === "stream-json" || value.type === "result") write(JSON.stringify(value) + "\n");
  };
  const common = () => ({ uuid: randomUUID(), session_id: sessionId() });
  /** Per agent (the parent, or a delegation's number): its model, and its last response's usage and end. */
  const models = new Map<string, string>();
  const answered = new Map<string, { usage: Usage; stop: StopReason | null }>();
  /** Calls of a tool that starts a subagent, waiting for it to start; then each subagent's call. */
  const starting: string[] = [];
  const startedBy = new Map<number, string>();
  const failed = new Set<string>();
  let instruction = { started: monotonicMs(), apiMs: 0, init: false };
  const keyOf = (event: AgentEvent) => (event.delegation === undefined ? "parent" : String(event.delegation));
  const parentCall = (key: string) => (key === "parent" ? null : (startedBy.get(Number(key)) ?? null));
  const init = (model: string, tools: string[]) => {
    instruction.init = true;
    line({
      type: "system",
      subtype: "init",
      ...common(),
      cwd: settings.cwd,
      model,
      tools,
      mcp_servers: [],
      permissionMode: PERMISSION_MODES[settings.access],
      apiKeySource: "user",
      slash_commands: [],
      output_style: "default",
    });
  };
  return (event) => {
    const key = keyOf(event);
    switch (event.type) {
      case "turn_start":
        if (event.agent === "parent") instruction = { started: monotonicMs(), apiMs: 0, init: false };
        return;
      case "request":
        models.set(key, event.body.model);
        if (event.agent === "parent" && !instruction.init)
          init(
            event.body.model,
            (event.body.tools ?? []).map((t) => t.function.name),
          );
        return;
      case "response":
        instruction.apiMs += event.durationMs;
        if (event.usage) answered.set(key, { usage: anthropicUsage(event.usage), stop: stopReason(event.finishReason) });
        return;
      case "tool_start":
        if (traitsOf(event.name)?.startsChild) starting.push(event.callId);
        return;
      case "delegation_start": {
        // Subagents start in the order of the calls that start them.
        const call = starting.shift();
        if (call) startedBy.set(event.number, call);
        return;
      }
      case "tool_end": {
        if (event.isError) failed.add(event.callId);
        // A call that ended without starting its subagent (refused, blocked by a hook) waits no more.
        const waiting = starting.indexOf(event.callId);
        if (waiting >= 0) starting.splice(waiting, 1);
        return;
      }
      case "message": {
        const message = messageLine(event.message, key);
        if (message) line(message);
        return;
      }
      case "turn_end":
        if (event.agent === "parent") {
          if (!instruction.init) init(models.get("parent") ?? "", []);
          line(resultLine(event, answered.get("parent")?.stop ?? null));
        }
        return;
      default:
        return;
    }
  };

  function messageLine(message: Message, key: string): StreamJsonLine | null {
    const parent_tool_use_id = parentCall(key);
    if (message.role === "assistant") {
      const content: z.infer<typeof ContentBlockSchema>[] = [
        ...(message.reasoning_content ? [{ type: "thinking" as const, thinking: message.reasoning_content, signature: "" }] : []),
        ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
        ...(message.tool_calls ?? []).map((call) => ({ type: "tool_use" as const, id: call.id, name: call.function.name, input: argumentsOf(call.function.arguments) })),
      ];
      const last = answered.get(key);
      return {
        type: "assistant",
        ...common(),
        parent_tool_use_id,
        message: {
          id: `msg_${randomUUID().replaceAll("-", "")}`,
          type: "message",
          role: "assistant",
          model: models.get(key) ?? "",
          content,
          stop_reason: last?.stop ?? null,
          stop_sequence: null,
          usage: last?.usage ?? anthropicUsage(null),
        },
      };
    }
    if (message.role === "tool") {
      const result = { type: "tool_result" as const, tool_use_id: message.tool_call_id, content: unstamped(message.content), is_error: failed.has(message.tool_call_id) };
      return { type: "user", ...common(), parent_tool_use_id, message: { role: "user", content: [result] } };
    }
    // The user's own instructions are not echoed, as Claude's are not without --replay-user-messages.
    return null;
  }

  function resultLine(event: AgentEvent & { type: "turn_end" }, stop: StopReason | null): StreamJsonLine {
    const report = ledger.instruction();
    const subtype = resultSubtype(event.exitReason, event.error);
    const modelUsage: Record<string, { inputTokens: number; outputTokens: number; cacheReadInputTokens: number; cacheCreationInputTokens: number; webSearchRequests: number; costUSD: number }> = {};
    for (const share of byAgent(report)) {
      const model = models.get(share.agent === "parent" ? "parent" : String(share.delegation));
      if (!model) continue;
      const sum = (modelUsage[model] ??= { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, webSearchRequests: 0, costUSD: 0 });
      sum.inputTokens += share.prompt_cache_miss_tokens;
      sum.outputTokens += share.completion_tokens;
      sum.cacheReadInputTokens += share.prompt_cache_hit_tokens;
      sum.costUSD += share.cost_usd ?? 0;
    }
    const success = subtype === "success";
    return {
      type: "result",
      subtype,
      ...common(),
      is_error: !success,
      duration_ms: Math.round(monotonicMs() - instruction.started),
      duration_api_ms: Math.round(instruction.apiMs),
      num_turns: report.parent.requests,
      ...(success ? { result: event.answer ?? "" } : {}),
      stop_reason: stop,
      total_cost_usd: report.total.cost_usd ?? 0,
      usage: anthropicUsage(report.total),
      modelUsage,
      permission_denials: [],
      ...("structured" in event ? { structured_output: event.structured } : {}),
      ...(success ? {} : { errors: [event.error ?? event.exitReason] }),
    };
  }
}

function resultSubtype(exitReason: ExitReason, error: string | undefined): (typeof RESULT_SUBTYPES)[number] {
  if (exitReason === "completed") return "success";
  if (exitReason === "max_steps") return "error_max_turns";
  if (exitReason === "budget") return "error_max_budget_usd";
  if (error?.startsWith(SHAPE_MISMATCH)) return "error_max_structured_output_retries";
  return "error_during_execution";
}

function anthropicUsage(usage: { prompt_cache_hit_tokens: number; prompt_cache_miss_tokens: number; completion_tokens: number } | null): Usage {
  return {
    input_tokens: usage?.prompt_cache_miss_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage?.prompt_cache_hit_tokens ?? 0,
    output_tokens: usage?.completion_tokens ?? 0,
  };
}

function stopReason(finish: FinishReason | null): StopReason | null {
  if (finish === "stop") return "end_turn";
  if (finish === "tool_calls") return "tool_use";
  if (finish === "length") return "max_tokens";
  if (finish === "content_filter") return "refusal";
  return null;
}

/** A call's arguments as an object, as Claude's tool_use input is; text that is not JSON stays text. */
function argumentsOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

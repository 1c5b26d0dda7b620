// The chat-completions wire types hel sends to and reads from DeepSeek, defined once with zod.
// Snapshots, records and the simulator all parse with these schemas; TypeScript types are inferred.
//
// A message never changes once it is in a conversation: its JSON is computed once and reused by every
// later request and save, and a resumed message is the bytes it was read as (serialize.ts,
// stored-message.ts), so an edit would be neither sent nor saved. The message types are therefore
// read-only all the way down, and the compiler refuses an edit; a change to the conversation is a new
// list (conversation-edits.ts), never a change to a message.
import { z } from "../zod.js";

/** `T` with every property and every array read-only, at every depth. */
type Immutable<T> = T extends readonly (infer E)[] ? readonly Immutable<E>[] : T extends object ? { readonly [K in keyof T]: Immutable<T[K]> } : T;

/**
 * The type inferred from a schema that holds a conversation (a request body, a snapshot, a child's
 * transcript), its messages of the read-only Message type: the schema's own output type would let
 * them be edited.
 */
export type WithMessages<T extends { messages: unknown }> = { [K in keyof T]: K extends "messages" ? Message[] : T[K] };

const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = Immutable<z.infer<typeof ToolCallSchema>>;

const SystemMessageSchema = z.object({ role: z.literal("system"), content: z.string() });
const UserMessageSchema = z.object({ role: z.literal("user"), content: z.string() });
const AssistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.string().nullable(),
  // DeepSeek answers 400 when an assistant message that made tool calls comes back without it.
  reasoning_content: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).min(1).optional(),
});
const ToolMessageSchema = z.object({
  role: z.literal("tool"),
  tool_call_id: z.string(),
  content: z.string(),
});

export const MessageSchema = z.discriminatedUnion("role", [SystemMessageSchema, UserMessageSchema, AssistantMessageSchema, ToolMessageSchema]);
export type Message = Immutable<z.infer<typeof MessageSchema>>;
export type SystemMessage = Immutable<z.infer<typeof SystemMessageSchema>>;
export type UserMessage = Immutable<z.infer<typeof UserMessageSchema>>;
export type AssistantMessage = Immutable<z.infer<typeof AssistantMessageSchema>>;
export type ToolMessage = Immutable<z.infer<typeof ToolMessageSchema>>;

export const ToolDefinitionSchema = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
  }),
});
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

/** DeepSeek's usage object; every field it sends is kept (passthrough), the ones hel sums are typed. */
export const UsageSchema = z.looseObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  prompt_cache_hit_tokens: z.number().int().nonnegative().default(0),
  prompt_cache_miss_tokens: z.number().int().nonnegative().default(0),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().optional() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().optional() }).nullish(),
  /** Set by hel, never by a server: the response had no usage, so these tokens are hel's estimate. */
  estimated: z.literal(true).optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/**
 * A response's usage, or undefined when it is not one. DeepSeek reports the cache as
 * prompt_cache_hit_tokens; other OpenAI-compatible servers as prompt_tokens_details.cached_tokens,
 * which is read where DeepSeek's own figure is absent.
 */
export function parseUsage(raw: unknown): Usage | undefined {
  const parsed = UsageSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const { estimated: _, ...usage } = parsed.data;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if ((raw as Record<string, unknown>).prompt_cache_hit_tokens !== undefined || cached === undefined) return usage;
  const hit = Math.min(cached, usage.prompt_tokens);
  return { ...usage, prompt_cache_hit_tokens: hit, prompt_cache_miss_tokens: usage.prompt_tokens - hit };
}

export const EFFORTS = ["none", "low", "high", "max"] as const;
export type Effort = (typeof EFFORTS)[number];

/** The exact body of one POST /chat/completions, as hel sends it. Field order is part of the cache prefix. */
export const ChatRequestSchema = z.object({
  model: z.string(),
  messages: z.array(MessageSchema).min(1),
  tools: z.array(ToolDefinitionSchema).optional(),
  thinking: z.object({ type: z.enum(["enabled", "disabled"]) }).optional(),
  reasoning_effort: z.string().optional(),
  max_tokens: z.number().int().positive().optional(),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean() }).optional(),
});
export type ChatRequest = WithMessages<z.infer<typeof ChatRequestSchema>>;

export const FINISH_REASONS = ["stop", "length", "tool_calls", "content_filter", "insufficient_system_resource", "aborted"] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

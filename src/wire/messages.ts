// The chat-completions wire types hel sends to and reads from DeepSeek, defined once with zod.
// Snapshots, records and the simulator all parse with these schemas; TypeScript types are inferred.
import { z } from "../zod.js";

export const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const SystemMessageSchema = z.object({ role: z.literal("system"), content: z.string() });
export const UserMessageSchema = z.object({ role: z.literal("user"), content: z.string() });
export const AssistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.string().nullable(),
  // DeepSeek answers 400 when an assistant message that made tool calls comes back without it.
  reasoning_content: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).min(1).optional(),
});
export const ToolMessageSchema = z.object({
  role: z.literal("tool"),
  tool_call_id: z.string(),
  content: z.string(),
});

export const MessageSchema = z.discriminatedUnion("role", [
  SystemMessageSchema,
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);
export type Message = z.infer<typeof MessageSchema>;
export type SystemMessage = z.infer<typeof SystemMessageSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;

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
});
export type Usage = z.infer<typeof UsageSchema>;

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
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

export const FINISH_REASONS = ["stop", "length", "tool_calls", "content_filter", "insufficient_system_resource", "aborted"] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

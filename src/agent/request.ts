// Builds the exact request body from the conversation. Pure, so the bytes the model receives are
// decided in one place and tested without a network. Field order is fixed: the body's serialization
// is what DeepSeek's prefix cache and the records see.
import type { Provider } from "../model/host.js";
import type { ChatRequest, Effort, Message, ToolDefinition } from "../wire/messages.js";

/** The settings of a request besides its messages and tools (the session's request_config holds them). */
export interface RequestSettings {
  readonly model: string;
  readonly maxTokens: number;
  readonly effort: Effort;
  /** Absent: deepseek. */
  readonly provider?: Provider;
}

/** The session's settings as `provider` is sent them, still read from the session's record each time. */
export function forProvider(settings: RequestSettings, provider: Provider): RequestSettings {
  if (provider === "deepseek") return settings;
  // The same getters, copied as getters, so each request still reads the record; then the provider.
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(settings));
  return Object.defineProperty(copy, "provider", { value: provider, enumerable: true }) as RequestSettings;
}

export function buildRequest(messages: readonly Message[], tools: readonly ToolDefinition[], config: RequestSettings): ChatRequest {
  const body: ChatRequest = { model: config.model, messages: [...messages] };
  // The tool list is shared, never copied or changed: the serializer caches its JSON by identity.
  if (tools.length > 0) body.tools = tools as ToolDefinition[];
  // Thinking is sent explicitly: DeepSeek turns it on by default, and its reasoning eats max_tokens.
  // Other servers do not know these fields (some refuse them), so only DeepSeek is sent them.
  if (config.provider !== "openai-compatible") {
    if (config.effort === "none") {
      body.thinking = { type: "disabled" };
    } else {
      body.thinking = { type: "enabled" };
      body.reasoning_effort = config.effort;
    }
  }
  // max_tokens, not max_completion_tokens: DeepSeek silently ignores the latter.
  body.max_tokens = config.maxTokens;
  body.stream = true;
  body.stream_options = { include_usage: true };
  return body;
}

/** The most max_tokens DeepSeek's models take. */
export const MAX_OUTPUT_TOKENS = 393216;

/** Default max_tokens: reasoning counts against it, so thinking turns get DeepSeek's own 64K default. */
export function defaultMaxTokens(effort: Effort): number {
  return effort === "none" ? 8192 : 65536;
}

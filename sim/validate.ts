// The real API's request rules: turns a parsed JSON body into a normalized
// ChatRequest plus the settings that shape the answer, or throws the ApiError DeepSeek would answer with.
// Shape errors are 422 (DeepSeek's JSON extractor), semantic errors 400. The context-length check needs
// the prompt's token count, so it is a separate function the server calls after serializing.
import type { ChatRequest, Message, ToolCall, ToolDefinition } from "../src/wire/messages.js";
import { ApiError, badShape, contextTooLong, missingReasoning, unknownModel } from "./errors.js";

export const MODELS = ["deepseek-flash", "deepseek-v4-pro"] as const;
/** Legacy names still accepted, and the model they are served by. */
const ALIASES: Record<string, string> = { "deepseek-v4-flash": "deepseek-flash", "deepseek-v4-flash-vision-exp": "deepseek-flash" };
export const MAX_OUTPUT_TOKENS = 393216;
export const DEFAULT_CONTEXT_WINDOW = 1048576;

const EFFORTS: Record<string, "none" | "low" | "high" | "max"> = {
  none: "none",
  minimal: "low",
  low: "low",
  medium: "high",
  high: "high",
  xhigh: "max",
  max: "max",
};

export interface Validated {
  request: ChatRequest;
  /** The canonical model name the response reports. */
  model: string;
  thinking: boolean;
  effort: "none" | "low" | "high" | "max";
  /** max_tokens, or the model's default for this mode. */
  maxTokens: number;
  stream: boolean;
  includeUsage: boolean;
}

export interface ValidateOptions {
  enforceReasoningContent: boolean;
  enforceArgumentsJson: boolean;
  /** Serve any model name under its own name, as a server that is not DeepSeek does. */
  anyModel?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "sequence";
  if (typeof v === "boolean") return `boolean \`${v}\``;
  if (typeof v === "number") return Number.isInteger(v) ? `integer \`${v}\`` : `floating point \`${v}\``;
  if (typeof v === "string") return `string ${JSON.stringify(v)}`;
  return "map";
}

/** Content may be a string or an array of parts; the template only needs the text. */
function contentText(v: unknown, where: string, allowNull: boolean): string | null {
  if (typeof v === "string") return v;
  if ((v === null || v === undefined) && allowNull) return null;
  if (v === undefined) throw badShape(`${where}: missing field \`content\``);
  if (Array.isArray(v)) {
    return v
      .map((part, j) => {
        if (!isObject(part) || typeof part["type"] !== "string") throw badShape(`${where}.content[${j}]: invalid content part`);
        if (part["type"] === "text" && typeof part["text"] === "string") return part["text"];
        if (part["type"] === "image_url") return "[image]";
        throw badShape(`${where}.content[${j}]: unknown variant \`${String(part["type"])}\`, expected \`text\` or \`image_url\``);
      })
      .join("");
  }
  throw badShape(`${where}.content: invalid type: ${typeName(v)}, expected a string or a sequence of content parts`);
}

function toolCalls(v: unknown, where: string): ToolCall[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw badShape(`${where}.tool_calls: invalid type: ${typeName(v)}, expected a sequence`);
  return v.map((c, j) => {
    const w = `${where}.tool_calls[${j}]`;
    if (!isObject(c)) throw badShape(`${w}: invalid type: ${typeName(c)}, expected struct ToolCall`);
    if (typeof c["id"] !== "string") throw badShape(`${w}: missing field \`id\``);
    const fn = c["function"];
    if (!isObject(fn) || typeof fn["name"] !== "string") throw badShape(`${w}: missing field \`function\``);
    if (typeof fn["arguments"] !== "string") throw badShape(`${w}.function: missing field \`arguments\``);
    return { id: c["id"], type: "function" as const, function: { name: fn["name"], arguments: fn["arguments"] } };
  });
}

function message(v: unknown, i: number): Message {
  const where = `messages[${i}]`;
  if (!isObject(v)) throw badShape(`${where}: invalid type: ${typeName(v)}, expected internally tagged enum Message`);
  const role = v["role"];
  if (role === undefined) throw badShape(`${where}: missing field \`role\``);
  if (role === "developer") throw new ApiError(400, `unsupported_developer_role: ${where} has role \`developer\`, which is not supported; use \`system\``);
  switch (role) {
    case "system":
    case "user":
      return { role: role as "system" | "user", content: contentText(v["content"], where, false) ?? "" };
    case "assistant": {
      const calls = toolCalls(v["tool_calls"], where);
      const content = contentText(v["content"], where, true);
      const reasoning = v["reasoning_content"];
      if (typeof reasoning !== "string" && reasoning !== undefined && reasoning !== null) throw badShape(`${where}.reasoning_content: invalid type: ${typeName(reasoning)}, expected a string`);
      return {
        role: "assistant",
        content,
        ...(typeof reasoning === "string" ? { reasoning_content: reasoning } : {}),
        ...(calls && calls.length > 0 ? { tool_calls: calls } : {}),
      };
    }
    case "tool": {
      if (typeof v["tool_call_id"] !== "string") throw badShape(`${where}: missing field \`tool_call_id\``);
      return { role: "tool", tool_call_id: v["tool_call_id"], content: contentText(v["content"], where, false) ?? "" };
    }
    default:
      throw badShape(`${where}.role: unknown variant \`${String(role)}\`, expected one of \`system\`, \`user\`, \`assistant\`, \`tool\``);
  }
}

function tools(v: unknown): ToolDefinition[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw badShape(`tools: invalid type: ${typeName(v)}, expected a sequence`);
  if (v.length > 128) throw new ApiError(400, `Invalid tools: at most 128 tools are supported, got ${v.length}.`);
  return v.map((t, j) => {
    if (!isObject(t) || !isObject(t["function"])) throw badShape(`tools[${j}]: missing field \`function\``);
    if (t["type"] !== "function") throw badShape(`tools[${j}].type: unknown variant \`${String(t["type"])}\`, expected \`function\``);
    const name = t["function"]["name"];
    if (typeof name !== "string") throw badShape(`tools[${j}].function: missing field \`name\``);
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) throw new ApiError(400, `Invalid function name: ${JSON.stringify(name)}. Function names must be a-z, A-Z, 0-9, underscores or dashes, at most 64 characters.`);
    // Kept exactly as sent: the template serializes the definition as received.
    return t as unknown as ToolDefinition;
  });
}

/** A tool call sent back must carry JSON arguments ("" stands for none); a cut or broken one is refused. */
function checkArgumentsJson(messages: Message[]): void {
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    (m.tool_calls ?? []).forEach((c, j) => {
      if (c.function.arguments.trim() === "") return;
      try {
        JSON.parse(c.function.arguments);
      } catch {
        throw new ApiError(400, `Invalid tool call at messages[${i}].tool_calls[${j}]: function.arguments must be a JSON string of the arguments.`);
      }
    });
  });
}

/** Tool results must answer the tool calls right before them, all of them, before anything else. */
function checkToolPairing(messages: Message[]): void {
  let pending = new Set<string>();
  let open = false;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "tool") {
      if (!open || !pending.has(m.tool_call_id))
        throw new ApiError(400, `Messages with role 'tool' must be a response to a preceding message with 'tool_calls' (messages[${i}], tool_call_id ${JSON.stringify(m.tool_call_id)}).`);
      pending.delete(m.tool_call_id);
      continue;
    }
    if (open && pending.size > 0)
      throw new ApiError(
        400,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " + `(insufficient tool messages following tool_calls message; missing ${[...pending].join(", ")})`,
      );
    open = m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0;
    pending = new Set(open && m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : []);
  }
  if (open && pending.size > 0)
    throw new ApiError(
      400,
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " + `(insufficient tool messages following tool_calls message; missing ${[...pending].join(", ")})`,
    );
}

export function validateRequest(body: unknown, opts: ValidateOptions): Validated {
  if (!isObject(body)) throw badShape(`invalid type: ${typeName(body)}, expected struct ChatCompletionRequest`);
  const model = body["model"];
  if (model === undefined) throw badShape("missing field `model`");
  if (typeof model !== "string") throw badShape(`model: invalid type: ${typeName(model)}, expected a string`);
  const rawMessages = body["messages"];
  if (rawMessages === undefined) throw badShape("missing field `messages`");
  if (!Array.isArray(rawMessages)) throw badShape(`messages: invalid type: ${typeName(rawMessages)}, expected a sequence`);

  const thinkingField = body["thinking"];
  if (thinkingField !== undefined && thinkingField !== null) {
    if (!isObject(thinkingField)) throw badShape(`thinking: invalid type: ${typeName(thinkingField)}, expected struct ThinkingOptions`);
    const t = thinkingField["type"];
    if (t !== "enabled" && t !== "disabled") throw badShape(`thinking.type: unknown variant \`${String(t)}\`, expected \`enabled\` or \`disabled\``);
  }
  const effortField = body["reasoning_effort"];
  let effort: Validated["effort"] = "high";
  if (effortField !== undefined && effortField !== null) {
    if (typeof effortField !== "string" || !(effortField in EFFORTS)) throw badShape(`reasoning_effort: unknown variant \`${String(effortField)}\`, expected one of \`none\`, \`low\`, \`high\`, \`max\``);
    effort = EFFORTS[effortField]!;
  }
  for (const key of ["stream", "logprobs"] as const) {
    const v = body[key];
    if (v !== undefined && v !== null && typeof v !== "boolean") throw badShape(`${key}: invalid type: ${typeName(v)}, expected a boolean`);
  }
  const maxTokensField = body["max_tokens"];
  if (maxTokensField !== undefined && maxTokensField !== null) {
    if (typeof maxTokensField !== "number" || !Number.isInteger(maxTokensField)) throw badShape(`max_tokens: invalid type: ${typeName(maxTokensField)}, expected u32`);
    if (maxTokensField < 1 || maxTokensField > MAX_OUTPUT_TOKENS) throw new ApiError(400, `Invalid max_tokens value, the valid range of max_tokens is [1, ${MAX_OUTPUT_TOKENS}]`);
  }
  const messages = rawMessages.map(message);
  const toolList = tools(body["tools"]);

  const canonical = (MODELS as readonly string[]).includes(model) || opts.anyModel ? model : ALIASES[model];
  if (!canonical) throw unknownModel(model, MODELS);
  if (messages.length === 0) throw new ApiError(400, "Invalid request: messages must contain at least one message.");

  const n = body["n"];
  if (n !== undefined && n !== null && n !== 1) throw new ApiError(400, "Invalid n value (currently only n = 1 is supported)");
  const temperature = body["temperature"];
  if (temperature !== undefined && temperature !== null && (typeof temperature !== "number" || temperature < 0 || temperature > 2))
    throw new ApiError(400, "Invalid temperature value, the valid range of temperature is [0, 2]");
  const topP = body["top_p"];
  if (topP !== undefined && topP !== null && (typeof topP !== "number" || topP <= 0 || topP > 1)) throw new ApiError(400, "Invalid top_p value, the valid range of top_p is (0, 1.0]");

  const thinking = !(isObject(thinkingField) && thinkingField["type"] === "disabled") && effort !== "none";
  const choice = body["tool_choice"];
  if (thinking && (choice === "required" || isObject(choice))) throw new ApiError(400, "The tool_choice `required` and named tool choices are not supported in thinking mode. Disable thinking mode first to use them.");

  messages.forEach((m, i) => {
    if (m.role === "assistant" && (m.content === null || m.content === undefined) && !m.tool_calls) throw new ApiError(400, `Invalid assistant message at messages[${i}]: content or tool_calls must be set`);
  });
  checkToolPairing(messages);
  if (opts.enforceArgumentsJson) checkArgumentsJson(messages);
  if (thinking && opts.enforceReasoningContent) {
    for (const m of messages) if (m.role === "assistant" && m.tool_calls && typeof m.reasoning_content !== "string") throw missingReasoning();
  }

  const stream = body["stream"] === true;
  const streamOptions = body["stream_options"];
  const includeUsage = isObject(streamOptions) && streamOptions["include_usage"] === true;
  const defaultMax = !thinking ? 8192 : effort === "max" ? 131072 : 65536;
  const maxTokens = typeof maxTokensField === "number" ? maxTokensField : defaultMax;

  const request: ChatRequest = { model, messages };
  if (toolList) request.tools = toolList;
  if (isObject(thinkingField)) request.thinking = { type: thinkingField["type"] as "enabled" | "disabled" };
  if (typeof effortField === "string") request.reasoning_effort = effortField;
  if (typeof maxTokensField === "number") request.max_tokens = maxTokensField;
  if (body["stream"] !== undefined) request.stream = stream;
  if (isObject(streamOptions)) request.stream_options = { include_usage: includeUsage };
  return { request, model: canonical, thinking, effort, maxTokens, stream, includeUsage };
}

/** The context check counts max_tokens (or its default) against the window, as DeepSeek does. */
export function checkContext(promptTokens: number, maxTokens: number, window: number): void {
  if (promptTokens + maxTokens > window) throw contextTooLong(window, promptTokens, maxTokens);
}

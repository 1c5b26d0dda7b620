// Folds DeepSeek's streamed chunks into one assistant message. Pure: chunks in, message out.
// Tool-call argument fragments are joined by their index, and every call comes out with an id no other
// call of the message has; usage is taken from whichever chunk carries it (DeepSeek puts it on the last
// content chunk, OpenAI on an extra one). Reasoning is read from DeepSeek's `reasoning_content` or, where
// a server names it so (vLLM, OpenRouter and others), `reasoning`.
import { FINISH_REASONS, parseUsage, type AssistantMessage, type FinishReason, type ToolCall, type Usage } from "../wire/messages.js";

interface ToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}
export interface ChunkLike {
  choices?: { delta?: { content?: string | null; reasoning_content?: string | null; reasoning?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[];
  usage?: unknown;
}

export interface Accumulated {
  message: AssistantMessage;
  finishReason: FinishReason | null;
  usage: Usage | undefined;
  /** Whether any part of the answer (reasoning, text or a tool call) has arrived. */
  started: boolean;
}

export class StreamAccumulator {
  private content = "";
  private reasoning: string | null = null;
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  private finish: FinishReason | null = null;
  private usage: Usage | undefined;
  started = false;

  /** Returns the text and reasoning deltas of this chunk, for the caller to show as they arrive. */
  push(chunk: ChunkLike): { text: string; reasoning: string } {
    if (chunk.usage) {
      this.usage = parseUsage(chunk.usage) ?? this.usage;
    }
    const choice = chunk.choices?.[0];
    if (!choice) return { text: "", reasoning: "" };
    const delta = choice.delta ?? {};
    const text = delta.content ?? "";
    const told = typeof delta.reasoning_content === "string" ? delta.reasoning_content : delta.reasoning;
    const reasoning = told ?? "";
    if (typeof told === "string") this.reasoning = (this.reasoning ?? "") + reasoning;
    this.content += text;
    for (const fragment of delta.tool_calls ?? []) {
      const index = fragment.index ?? this.calls.size;
      const call = this.calls.get(index) ?? { id: "", name: "", arguments: "" };
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name += fragment.function.name;
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
      this.calls.set(index, call);
      this.started = true;
    }
    if (text || reasoning) this.started = true;
    if (choice.finish_reason) this.finish = toFinishReason(choice.finish_reason);
    return { text, reasoning };
  }

  result(): Accumulated {
    const ids = new Set<string>();
    const toolCalls: ToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => ({
        id: uniqueId(c.id || `call_${String(index).padStart(2, "0")}_hel`, index, ids),
        type: "function" as const,
        function: { name: c.name, arguments: c.arguments },
      }));
    const message: AssistantMessage = {
      role: "assistant",
      content: this.content,
      // A tool-call turn always carries reasoning_content back, even empty: DeepSeek's thinking mode
      // answers 400 without it, and ignores it where it is not needed.
      ...(this.reasoning !== null || toolCalls.length > 0 ? { reasoning_content: this.reasoning ?? "" } : {}),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    };
    return { message, finishReason: this.finish, usage: this.usage, started: this.started };
  }
}

/**
 * Each result answers its call by id, so a message's ids must differ: a model that sends one id twice
 * would leave a conversation no request or save accepts. A repeat gets a new id of its own, made from
 * the one it repeats and its place in the message.
 */
function uniqueId(id: string, index: number, taken: Set<string>): string {
  let unique = id;
  for (let n = 0; taken.has(unique); n++) unique = `${id}_${String(index).padStart(2, "0")}${n > 0 ? `_${n}` : ""}_hel`;
  taken.add(unique);
  return unique;
}

function toFinishReason(value: string): FinishReason {
  return (FINISH_REASONS as readonly string[]).includes(value) ? (value as FinishReason) : "stop";
}

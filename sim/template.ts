// Serializes a chat request into the prompt text the simulated prefix cache sees, modelled on
// DeepSeek's chat template. Contract:
//   - deterministic: equal requests give equal token sequences;
//   - order: BOS, the leading system messages, the tool definitions (JSON, in the order sent, so the
//     tool list is part of the cached prefix), then every other message with role markers, then the
//     generation prompt (the assistant marker);
//   - an assistant message serializes the same whether it is the model's output or comes back as input
//     (content, tool calls as name + raw arguments, and reasoning_content only on tool-call turns,
//     which is when DeepSeek keeps it in context), so one request's output unit is a prefix of the next.
// Each segment is tokenized on its own and markers are single tokens, so appending messages never
// changes the tokens of what came before.
import type { ChatRequest, Message, ToolCall } from "../src/wire/messages.js";
import { tokenEnds } from "./tokens.js";

export const MARK = {
  bos: "<｜begin▁of▁sentence｜>",
  eos: "<｜end▁of▁sentence｜>",
  system: "<｜System｜>",
  user: "<｜User｜>",
  assistant: "<｜Assistant｜>",
  thinkStart: "<think>",
  thinkEnd: "</think>",
  callsBegin: "<｜tool▁calls▁begin｜>",
  callsEnd: "<｜tool▁calls▁end｜>",
  callBegin: "<｜tool▁call▁begin｜>",
  callSep: "<｜tool▁sep｜>",
  callEnd: "<｜tool▁call▁end｜>",
  outputBegin: "<｜tool▁output▁begin｜>",
  outputEnd: "<｜tool▁output▁end｜>",
} as const;

export interface Segment {
  text: string;
  /** A marker: one token whatever its text. */
  special: boolean;
}

/** A token sequence: the concatenated text and each token's end offset in it. */
export interface TokenSeq {
  text: string;
  ends: number[];
}

const mark = (text: string): Segment => ({ text, special: true });
const plain = (text: string): Segment => ({ text, special: false });

const TOOLS_HEADER = "\n\n## Tools\n\nYou may call the functions below. Each definition is a JSON object on its own line.\n\n";

/** The shape of an assistant turn, whether it comes back as input or was just generated. */
export interface AssistantTurn {
  content?: string | null;
  reasoning_content?: string | null;
  tool_calls?: readonly Pick<ToolCall, "function">[] | undefined;
}

export function assistantSegments(turn: AssistantTurn): Segment[] {
  const segs: Segment[] = [mark(MARK.assistant)];
  const calls = turn.tool_calls ?? [];
  if (calls.length > 0) {
    // DeepSeek keeps reasoning in context only for tool-call turns; "" and absent are the same.
    segs.push(mark(MARK.thinkStart));
    if (turn.reasoning_content) segs.push(plain(turn.reasoning_content));
    segs.push(mark(MARK.thinkEnd));
  }
  if (turn.content) segs.push(plain(turn.content));
  if (calls.length > 0) {
    segs.push(mark(MARK.callsBegin));
    for (const call of calls) {
      segs.push(mark(MARK.callBegin), plain(call.function.name), mark(MARK.callSep));
      if (call.function.arguments) segs.push(plain(call.function.arguments));
      segs.push(mark(MARK.callEnd));
    }
    segs.push(mark(MARK.callsEnd));
  }
  segs.push(mark(MARK.eos));
  return segs;
}

/** What the model adds after the prompt: the assistant turn without its leading marker. */
export function outputSegments(turn: AssistantTurn): Segment[] {
  return assistantSegments(turn).slice(1);
}

function messageSegments(msg: Message): Segment[] {
  switch (msg.role) {
    case "system":
      return [mark(MARK.system), plain(msg.content)];
    case "user":
      return [mark(MARK.user), plain(msg.content)];
    case "assistant":
      return assistantSegments(msg);
    case "tool":
      return [mark(MARK.outputBegin), plain(msg.content), mark(MARK.outputEnd)];
  }
}

/** The whole prompt of a request, ending with the generation prompt. */
export function promptSegments(req: Pick<ChatRequest, "messages" | "tools">): Segment[] {
  const segs: Segment[] = [mark(MARK.bos)];
  let i = 0;
  const msgs = req.messages;
  for (; i < msgs.length && msgs[i]!.role === "system"; i++) {
    if (i > 0) segs.push(plain("\n\n"));
    segs.push(plain(msgs[i]!.content ?? ""));
  }
  const tools = req.tools ?? [];
  if (tools.length > 0) {
    segs.push(plain(TOOLS_HEADER));
    for (const tool of tools) segs.push(plain(JSON.stringify(tool) + "\n"));
  }
  for (; i < msgs.length; i++) segs.push(...messageSegments(msgs[i]!));
  segs.push(mark(MARK.assistant));
  return segs;
}

/** Tokenizes segments one by one (markers = one token) and appends them to `into`. */
export function tokenizeSegments(segs: readonly Segment[], into: TokenSeq = { text: "", ends: [] }): TokenSeq {
  const parts: string[] = [into.text];
  let offset = into.text.length;
  for (const seg of segs) {
    if (seg.text.length === 0) continue;
    if (seg.special) into.ends.push(offset + seg.text.length);
    else tokenEnds(seg.text, into.ends, offset);
    parts.push(seg.text);
    offset += seg.text.length;
  }
  into.text = parts.join("");
  return into;
}

/** Number of tokens of a list of segments. */
export function countSegments(segs: readonly Segment[]): number {
  let n = 0;
  for (const seg of segs) {
    if (seg.text.length === 0) continue;
    n += seg.special ? 1 : tokenEnds(seg.text).length;
  }
  return n;
}

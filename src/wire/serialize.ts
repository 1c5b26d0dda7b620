// The request body's JSON, exactly `JSON.stringify(body)`, without re-serializing the conversation on
// every request: a message never changes once it is in the conversation, so its JSON is computed
// once and reused by every later request (and by the snapshot). Without this a 1,000-message
// conversation cost ~10 ms of serialization per model turn, growing with every turn.
import type { ChatRequest, Message } from "./messages.js";

const messageJsonCache = new WeakMap<object, string>();
const listJsonCache = new WeakMap<object, string>();
// Stand-ins for the two long lists while the small rest of the body is stringified; the NUL bytes
// cannot come out of JSON.stringify unescaped, so the markers cannot collide with real content.
const MESSAGES = "\u0000hel-messages\u0000";
const TOOLS = "\u0000hel-tools\u0000";

export function messageJson(message: Message): string {
  let json = messageJsonCache.get(message);
  if (json === undefined) {
    json = JSON.stringify(message);
    messageJsonCache.set(message, json);
  }
  return json;
}

export function messagesJson(messages: readonly Message[]): string {
  return `[${messages.map(messageJson).join(",")}]`;
}

export function requestJson(body: ChatRequest): string {
  const skeleton = JSON.stringify({ ...body, messages: MESSAGES, ...(body.tools ? { tools: TOOLS } : {}) });
  let json = skeleton.replace(JSON.stringify(MESSAGES), () => messagesJson(body.messages));
  if (body.tools) {
    const tools = body.tools;
    let toolsJson = listJsonCache.get(tools);
    if (toolsJson === undefined) {
      toolsJson = JSON.stringify(tools);
      listJsonCache.set(tools, toolsJson);
    }
    json = json.replace(JSON.stringify(TOOLS), () => toolsJson);
  }
  return json;
}

// A simulated model for one parent and its subagents, as the parallel-children tests drive it: the
// parent delegates its tasks in one message, then answers with the results it got; each child answers
// by how many tool results it has seen.
import { lastUserText } from "../../sim/policies.js";
import type { SimStep } from "../../sim/index.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";

const SUBAGENT = "You are a subagent";

export const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
export const toolResults = (req: ChatRequest) => req.messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");

/** Which child a request is from: the letter its task starts with ("Task A: …"), or null for the parent. */
export function childOf(req: ChatRequest): string | null {
  const text = lastUserText(req);
  return text.startsWith(SUBAGENT) ? (/Task:\nTask ([A-Z]):/.exec(text)?.[1] ?? "?") : null;
}

/**
 * A model for one parent and its children: the parent delegates `tasks` in one message and then
 * answers with the results it got, in order; child X answers from `children[X]` by how many tool
 * results it has seen.
 */
export function parallelPolicy(tasks: { task: string; max_steps?: number; isolation?: string }[], children: Record<string, (results: number, req: ChatRequest) => SimStep>) {
  return (req: ChatRequest): SimStep => {
    const child = childOf(req);
    const results = toolResults(req);
    if (child !== null) return children[child]!(results.length, req);
    if (results.length === 0) return { tool_calls: tasks.map((t) => call("delegate_task", t)) };
    return { content: results.map((r) => r.content).join("\n---\n") };
  };
}

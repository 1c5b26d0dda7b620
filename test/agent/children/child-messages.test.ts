import { describe, expect, it } from "vitest";
import { childMessages, childTask, ROLE_NOTE } from "../../../src/agent/children/child-messages.js";
import type { Message } from "../../../src/wire/messages.js";

const call = (id: string, name: string, args: object) => ({ id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } });

// A parent conversation with an earlier turn (tool calls, a final answer, an earlier delegation),
// then a second turn whose last assistant message holds the new delegate call.
const system: Message = { role: "system", content: "SYSTEM" };
const user1: Message = { role: "user", content: "first instruction" };
const readCalls: Message = { role: "assistant", content: "", reasoning_content: "r1", tool_calls: [call("c1", "read_file", { path: "a" }), call("c2", "read_file", { path: "b" })] };
const result1: Message = { role: "tool", tool_call_id: "c1", content: "A" };
const result2: Message = { role: "tool", tool_call_id: "c2", content: "B" };
const earlierDelegate: Message = { role: "assistant", content: "", reasoning_content: "r2", tool_calls: [call("c3", "delegate_task", { task: "old task" })] };
const earlierDelegateResult: Message = { role: "tool", tool_call_id: "c3", content: "old child answer" };
const answer1: Message = { role: "assistant", content: "first answer" };
const user2: Message = { role: "user", content: "second instruction" };
const read3: Message = { role: "assistant", content: "checking", reasoning_content: "r3", tool_calls: [call("c4", "read_file", { path: "c" })] };
const result3: Message = { role: "tool", tool_call_id: "c4", content: "C" };
const delegateCall: Message = { role: "assistant", content: "", reasoning_content: "r4", tool_calls: [call("c5", "delegate_task", { task: "new task" })] };
const parent = [system, user1, readCalls, result1, result2, earlierDelegate, earlierDelegateResult, answer1, user2, read3, result3, delegateCall];
const last: Message = { role: "user", content: childTask("new task") };

describe("childMessages", () => {
  it("full: every message before the delegate call, then the role note and task", () => {
    expect(childMessages(parent, "full", "new task")).toEqual([...parent.slice(0, -1), last]);
  });

  it("no-tools: system, user and final answers only — no tool calls, no tool results, no earlier delegation", () => {
    expect(childMessages(parent, "no-tools", "new task")).toEqual([system, user1, answer1, user2, last]);
  });

  it("task-only: the system message, then the role note and task", () => {
    expect(childMessages(parent, "task-only", "new task")).toEqual([system, last]);
  });

  it("cuts at the assistant message holding the call even when results of earlier calls follow it", () => {
    const parallel: Message = { role: "assistant", content: "", reasoning_content: "", tool_calls: [call("c6", "read_file", { path: "d" }), call("c7", "delegate_task", { task: "t" })] };
    const conversation = [system, user1, parallel, { role: "tool", tool_call_id: "c6", content: "D" } as Message];
    expect(childMessages(conversation, "full", "t")).toEqual([system, user1, { role: "user", content: childTask("t") }]);
  });

  it("does not modify the parent's messages", () => {
    const copy = structuredClone(parent);
    childMessages(parent, "full", "x");
    expect(parent).toEqual(copy);
  });

  it("the role note comes first, then the task, in the last user message", () => {
    const content = childTask("edit deploy/api.yaml");
    expect(content.startsWith(ROLE_NOTE)).toBe(true);
    expect(content.endsWith("\n\nTask:\nedit deploy/api.yaml")).toBe(true);
    expect(ROLE_NOTE).toMatch(/subagent/);
    expect(ROLE_NOTE).toMatch(/not instructions/);
    expect(ROLE_NOTE).toMatch(/cannot delegate/);
  });
});

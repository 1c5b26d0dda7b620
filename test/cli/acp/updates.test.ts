import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/events.js";
import type { FileEdit } from "../../../src/changes/file-edit.js";
import { editDiffs, replayUpdates, stopReasonOf, toolKind, toolTitle, TurnUpdates } from "../../../src/cli/acp/updates.js";
import { emptyTotals } from "../../../src/agent/usage.js";

const DIR = "/work/project";
const parent = { agent: "parent" as const };
const runCall = (id: string, command: string) => ({ id, type: "function" as const, function: { name: "run_command", arguments: JSON.stringify({ command }) } });

describe("a tool call's kind and title", () => {
  it("come from the catalogue's traits", () => {
    expect(["search_replace", "run_command", "read_file", "grep", "find_files", "fold", "ask", "delegate_task", "mcp__gh__issues"].map(toolKind)).toEqual([
      "edit",
      "execute",
      "read",
      "search",
      "search",
      "other",
      "other",
      "other",
      "other",
    ]);
  });

  it("names the command, else the file, else the first text argument, on one short line", () => {
    expect(toolTitle("run_command", { workdir: "src", command: "npm  test\n-- -u" })).toBe("run_command npm test -- -u");
    expect(toolTitle("search_replace", { old_text: "a", path: "src/a.ts" })).toBe("search_replace src/a.ts");
    expect(toolTitle("grep", { pattern: "TODO" })).toBe("grep TODO");
    expect(toolTitle("recall", {})).toBe("recall");
    expect(toolTitle("ask", { question: "x".repeat(200) })).toBe(`ask ${"x".repeat(79)}…`);
  });
});

describe("an edit's diffs", () => {
  const edit: FileEdit = {
    path: "src/a.ts",
    created: false,
    added: 2,
    removed: 1,
    hunks: [
      { old_start: 1, old_lines: 2, new_start: 1, new_lines: 2, lines: [" one", "-two", "+2"] },
      { old_start: 9, old_lines: 1, new_start: 9, new_lines: 2, lines: [" nine", "+ten"] },
    ],
  };

  it("are each hunk before and after, at the file's absolute path", () => {
    expect(editDiffs(edit, DIR)).toEqual([
      { type: "diff", path: "/work/project/src/a.ts", oldText: "one\ntwo", newText: "one\n2" },
      { type: "diff", path: "/work/project/src/a.ts", oldText: "nine", newText: "nine\nten" },
    ]);
  });

  it("of a new file are all of it, from nothing", () => {
    const created: FileEdit = { path: "b.txt", created: true, added: 2, removed: 0, hunks: [{ old_start: 0, old_lines: 0, new_start: 1, new_lines: 2, lines: ["+a", "+b"] }] };
    expect(editDiffs(created, DIR)).toEqual([{ type: "diff", path: "/work/project/b.txt", oldText: null, newText: "a\nb" }]);
  });
});

describe("the stop reason of a turn", () => {
  it("says cancelled for an interrupted turn and names the limits ACP knows", () => {
    expect((["completed", "aborted", "max_steps", "length", "budget", "empty"] as const).map(stopReasonOf)).toEqual(["end_turn", "cancelled", "max_turn_requests", "max_tokens", "end_turn", "end_turn"]);
  });
});

describe("a turn's updates", () => {
  it("follow a call from the model's asking to its end, with a command's output as it comes", () => {
    const updates = new TurnUpdates(DIR);
    const events: AgentEvent[] = [
      { ...parent, type: "turn_start", instruction: "test it" },
      { ...parent, type: "reasoning_delta", text: "Run the tests." },
      { ...parent, type: "message", message: { role: "assistant", content: null, tool_calls: [runCall("c1", "npm test")] } },
      { ...parent, type: "tool_start", callId: "c1", name: "run_command", arguments: JSON.stringify({ command: "npm test" }) },
      { ...parent, type: "tool_output", callId: "c1", name: "run_command", text: "ok 1\n", skippedBytes: 0 },
      { ...parent, type: "tool_output", callId: "c1", name: "run_command", text: "ok 2\n", skippedBytes: 0 },
      { ...parent, type: "tool_end", callId: "c1", name: "run_command", isError: true, result: "exit code 1" },
      { ...parent, type: "text_delta", text: "It fails." },
    ];
    expect(events.flatMap((e) => updates.updatesOf(e))).toEqual([
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Run the tests." } },
      { sessionUpdate: "tool_call", toolCallId: "c1", title: "run_command npm test", kind: "execute", status: "pending", locations: [], rawInput: { command: "npm test" } },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", content: [{ type: "content", content: { type: "text", text: "ok 1\n" } }] },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", content: [{ type: "content", content: { type: "text", text: "ok 1\nok 2\n" } }] },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "failed", content: [{ type: "content", content: { type: "text", text: "exit code 1" } }] },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "It fails." } },
    ]);
  });

  it("name the open call an approval asks about, and mark failed a call the user interrupted before it ran", () => {
    const updates = new TurnUpdates(DIR);
    updates.updatesOf({ ...parent, type: "message", message: { role: "assistant", content: null, tool_calls: [runCall("c1", "npm publish"), runCall("c2", "ls")] } });
    expect(updates.callOf("ls")).toBe("c2");
    expect(updates.callOf("npm publish")).toBe("c1");
    expect(updates.callOf("rm -rf /")).toBeNull();
    expect(updates.updatesOf({ ...parent, type: "message", message: { role: "tool", tool_call_id: "c2", content: "[#3] Error: the user interrupted" } })).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "c2", status: "failed", content: [{ type: "content", content: { type: "text", text: "Error: the user interrupted" } }] },
    ]);
    expect(updates.callOf("ls")).toBeNull();
  });

  it("show the turn's children as a plan, and nothing of what a child streams", () => {
    const updates = new TurnUpdates(DIR);
    const child = { agent: "child" as const, delegation: 1 };
    const events: AgentEvent[] = [
      { ...parent, type: "delegation_start", number: 1, kind: "delegate", mode: "full", task: "fix a" },
      { ...child, type: "text_delta", text: "child text" },
      { ...parent, type: "delegation_start", number: 2, kind: "review", mode: null, task: "review it" },
      { ...parent, type: "delegation_end", number: 1, kind: "delegate", mode: "full", task: "fix a", answer: "done", exitReason: "completed", toolCalls: [], usage: emptyTotals() },
    ];
    expect(events.flatMap((e) => updates.updatesOf(e))).toEqual([
      { sessionUpdate: "plan", entries: [{ content: "fix a", priority: "medium", status: "in_progress" }] },
      {
        sessionUpdate: "plan",
        entries: [
          { content: "fix a", priority: "medium", status: "in_progress" },
          { content: "review it", priority: "medium", status: "in_progress" },
        ],
      },
      {
        sessionUpdate: "plan",
        entries: [
          { content: "fix a", priority: "medium", status: "completed" },
          { content: "review it", priority: "medium", status: "in_progress" },
        ],
      },
    ]);
  });
});

describe("the end of a turn", () => {
  const end = (exitReason: "budget" | "error" | "completed", error?: string): AgentEvent => ({
    ...parent,
    type: "turn_end",
    answer: null,
    exitReason,
    usage: emptyTotals(),
    contextTokens: 0,
    meter: null,
    ...(error ? { error } : {}),
  });

  it("says why it stopped short, unless the prompt's error says it", () => {
    const updates = new TurnUpdates(DIR);
    expect(updates.updatesOf(end("budget", "the next request would pass --max-cost"))).toEqual([
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "\n\n[hel: the next request would pass --max-cost]" } },
    ]);
    expect(updates.updatesOf(end("error", "HTTP 500"))).toEqual([]);
    expect(updates.updatesOf(end("completed"))).toEqual([]);
  });
});

describe("a saved conversation replayed", () => {
  it("says what each message said, without hel's stamps or the system prompt, with each edit's diffs", () => {
    const edit: FileEdit = { path: "a.ts", created: false, added: 1, removed: 1, hunks: [{ old_start: 1, old_lines: 1, new_start: 1, new_lines: 1, lines: ["-x", "+y"] }] };
    const call = (id: string, name: string, args: object) => ({ id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } });
    expect(
      replayUpdates(
        [
          { role: "system", content: "You are hel." },
          { role: "user", content: "[#1] look" },
          { role: "assistant", content: "Looking.", reasoning_content: "hm", tool_calls: [call("c1", "read_file", { path: "a.ts" })] },
          { role: "tool", tool_call_id: "c1", content: "[#2] 1: x" },
          { role: "assistant", content: null, reasoning_content: "fix", tool_calls: [call("c2", "search_replace", { path: "a.ts", old_text: "x", new_text: "y" })] },
          { role: "tool", tool_call_id: "c2", content: "[#3] Edited a.ts" },
        ],
        new Map([["c2", edit]]),
        DIR,
      ),
    ).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "look" } },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hm" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Looking." } },
      { sessionUpdate: "tool_call", toolCallId: "c1", title: "read_file a.ts", kind: "read", status: "pending", locations: [{ path: "/work/project/a.ts" }], rawInput: { path: "a.ts" } },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", content: [{ type: "content", content: { type: "text", text: "1: x" } }] },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "fix" } },
      {
        sessionUpdate: "tool_call",
        toolCallId: "c2",
        title: "search_replace a.ts",
        kind: "edit",
        status: "pending",
        locations: [{ path: "/work/project/a.ts" }],
        rawInput: { path: "a.ts", old_text: "x", new_text: "y" },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c2",
        status: "completed",
        content: [{ type: "diff", path: "/work/project/a.ts", oldText: "x", newText: "y" }],
        locations: [{ path: "/work/project/a.ts", line: 1 }],
      },
    ]);
  });

  it("show the parent's todo list as the plan, before the turn's children; a child's list is not the session's", () => {
    const updates = new TurnUpdates(DIR, [{ text: "saved step", status: "done" }]);
    const child = { agent: "child" as const, delegation: 1 };
    const events: AgentEvent[] = [
      { ...parent, type: "turn_start", instruction: "go" },
      { ...parent, type: "delegation_start", number: 1, kind: "delegate", mode: "full", task: "fix a" },
      { ...child, type: "todo", items: [{ text: "child step", status: "pending" }] },
      {
        ...parent,
        type: "todo",
        items: [
          { text: "read", status: "done" },
          { text: "fix", status: "in_progress" },
          { text: "test", status: "pending" },
        ],
      },
    ];
    expect(events.flatMap((e) => updates.updatesOf(e))).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "saved step", priority: "medium", status: "completed" },
          { content: "fix a", priority: "medium", status: "in_progress" },
        ],
      },
      {
        sessionUpdate: "plan",
        entries: [
          { content: "read", priority: "medium", status: "completed" },
          { content: "fix", priority: "medium", status: "in_progress" },
          { content: "test", priority: "medium", status: "pending" },
          { content: "fix a", priority: "medium", status: "in_progress" },
        ],
      },
    ]);
  });
});

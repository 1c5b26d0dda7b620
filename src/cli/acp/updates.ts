// What an editor is shown over ACP, made from what hel knows: the agent loop's typed events while a
// turn runs (the answer and reasoning as they stream, each tool call from the moment the model asks
// for it to its end, an edit's diff from the FileEdit the tool reported, the todo list and the
// children as a plan), and a saved conversation's messages (and todo list) when a session is loaded. Pure: the driver (agent.ts) sends them.
// A tool's kind, title and location come from the catalogue's traits, never from a result's text.
import { resolve } from "node:path";
import type { SessionUpdate, StopReason, ToolCallContent, ToolCallLocation, ToolKind, PlanEntry } from "@agentclientprotocol/sdk";
import type { AgentEvent, ExitReason } from "../../agent/events.js";
import { unstamped } from "../../agent/stamps.js";
import { traitsOf } from "../../agent/toolbox.js";
import type { FileEdit } from "../../changes/file-edit.js";
import type { TodoItem } from "../../agent/todo-list.js";
import type { Message, ToolCall } from "../../wire/messages.js";

/** What a running command has printed, as much of it as a tool call's live view shows. */
const LIVE_OUTPUT_CHARS = 8000;
const TITLE_SUBJECT_CHARS = 80;

/** The kind of icon and treatment an editor gives a call, from what the tool does. */
export function toolKind(name: string): ToolKind {
  const traits = traitsOf(name);
  if (!traits) return "other";
  if (traits.editsFiles) return "edit";
  if (traits.runsCommands) return "execute";
  if (traits.startsChild || traits.folds) return "other";
  if (traits.hintedPath) return "read";
  return traits.readsOnly ? "search" : "other";
}

function argsOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The tool's name and what it works on: the command, else the file it names, else its first text argument. */
export function toolTitle(name: string, args: Record<string, unknown>): string {
  const pathArgument = traitsOf(name)?.pathArgument;
  const candidates = [args.command, pathArgument ? args[pathArgument] : undefined, ...Object.values(args)];
  const subject = candidates.find((value): value is string => typeof value === "string" && value.trim() !== "");
  if (subject === undefined) return name;
  const line = subject.replace(/\s+/g, " ").trim();
  return `${name} ${line.length > TITLE_SUBJECT_CHARS ? `${line.slice(0, TITLE_SUBJECT_CHARS - 1)}…` : line}`;
}

function locationsOf(name: string, args: Record<string, unknown>, projectDir: string): ToolCallLocation[] {
  const pathArgument = traitsOf(name)?.pathArgument;
  const path = pathArgument ? args[pathArgument] : undefined;
  return typeof path === "string" && path !== "" ? [{ path: resolve(projectDir, path) }] : [];
}

const text = (value: string): ToolCallContent => ({ type: "content", content: { type: "text", text: value } });

/** An edit as the editor diffs it: each hunk's lines before and after (a new file: all of it, from nothing). */
export function editDiffs(edit: FileEdit, projectDir: string): ToolCallContent[] {
  const path = resolve(projectDir, edit.path);
  const side = (lines: readonly string[], mark: "-" | "+") =>
    lines
      .filter((line) => line.startsWith(" ") || line.startsWith(mark))
      .map((line) => line.slice(1))
      .join("\n");
  if (edit.created)
    return [
      {
        type: "diff",
        path,
        oldText: null,
        newText: side(
          edit.hunks.flatMap((h) => h.lines),
          "+",
        ),
      },
    ];
  return edit.hunks.map((hunk) => ({ type: "diff", path, oldText: side(hunk.lines, "-"), newText: side(hunk.lines, "+") }));
}

/** The stop reason a prompt answers with; an error is answered as an error instead (agent.ts). */
export function stopReasonOf(exitReason: ExitReason): StopReason {
  switch (exitReason) {
    case "aborted":
      return "cancelled";
    case "max_steps":
      return "max_turn_requests";
    case "length":
      return "max_tokens";
    default:
      return "end_turn";
  }
}

function callOpened(call: ToolCall, projectDir: string): SessionUpdate {
  const { name, arguments: argsText } = call.function;
  const args = argsOf(argsText);
  return {
    sessionUpdate: "tool_call",
    toolCallId: call.id,
    title: toolTitle(name, args),
    kind: toolKind(name),
    status: "pending",
    locations: locationsOf(name, args, projectDir),
    rawInput: args,
  };
}

const chunk = (kind: "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk", value: string): SessionUpdate => ({
  sessionUpdate: kind,
  content: { type: "text", text: value },
});

/** How a call ended: an edit as its diffs and the lines it changed, anything else as the result the model got. */
function callEnded(toolCallId: string, status: "completed" | "failed", result: string, edit: FileEdit | undefined, projectDir: string): SessionUpdate {
  if (!edit) return { sessionUpdate: "tool_call_update", toolCallId, status, content: [text(result)] };
  const path = resolve(projectDir, edit.path);
  const locations = edit.hunks.map((h) => ({ path, line: h.new_start }));
  return { sessionUpdate: "tool_call_update", toolCallId, status, content: editDiffs(edit, projectDir), locations };
}

const PLAN_STATUS: Record<TodoItem["status"], PlanEntry["status"]> = { pending: "pending", in_progress: "in_progress", done: "completed" };

/** The parent's todo list as the entries of ACP's plan. */
export function todoEntries(items: readonly TodoItem[]): PlanEntry[] {
  return items.map((item) => ({ content: item.text, priority: "medium", status: PLAN_STATUS[item.status] }));
}

/**
 * A saved conversation as updates, for session/load: what was said, thought and called, and each
 * call's result, with the diffs of the parent's edits (`edits`, by call id) as they were shown live.
 */
export function replayUpdates(messages: readonly Message[], edits: ReadonlyMap<string, FileEdit>, projectDir: string): SessionUpdate[] {
  return messages.flatMap((message): SessionUpdate[] => {
    switch (message.role) {
      case "system":
        return [];
      case "user":
        return [chunk("user_message_chunk", unstamped(message.content))];
      case "tool":
        return [callEnded(message.tool_call_id, "completed", unstamped(message.content), edits.get(message.tool_call_id), projectDir)];
      case "assistant":
        return [
          ...(message.reasoning_content ? [chunk("agent_thought_chunk", message.reasoning_content)] : []),
          ...(message.content ? [chunk("agent_message_chunk", message.content)] : []),
          ...(message.tool_calls ?? []).map((call) => callOpened(call, projectDir)),
        ];
    }
  });
}

/**
 * The updates of the parent's turns, one event at a time. It keeps what an event alone does not say:
 * which calls are still open (and their arguments, so an approval can name its call), what a command
 * has printed so far, and the children of the turn.
 */
export class TurnUpdates {
  private readonly open = new Map<string, { name: string; args: Record<string, unknown> }>();
  private readonly output = new Map<string, string>();
  /** The plan is the todo list, which outlives a turn, then the turn's children. */
  private todo: PlanEntry[] = [];
  private plan: PlanEntry[] = [];
  private readonly children = new Map<number, number>();

  /** `todo`: a resumed session's list, which the next plan update starts from. */
  constructor(
    private readonly projectDir: string,
    todo: readonly TodoItem[] = [],
  ) {
    this.todo = todoEntries(todo);
  }

  /** The open run_command call of this command, latest first: the one an approval asks about. */
  callOf(command: string): string | null {
    const ids = [...this.open].filter(([, call]) => traitsOf(call.name)?.runsCommands && call.args.command === command).map(([id]) => id);
    return ids.at(-1) ?? null;
  }

  updatesOf(event: AgentEvent): SessionUpdate[] {
    if (event.type === "delegation_start" || event.type === "delegation_end") return [this.planned(event)];
    if (event.agent !== "parent") return [];
    switch (event.type) {
      case "turn_start":
        this.plan = [];
        this.children.clear();
        return [];
      case "todo":
        this.todo = todoEntries(event.items);
        return [{ sessionUpdate: "plan", entries: [...this.todo, ...this.plan] }];
      // Why a turn stopped short, where its stop reason cannot say (the spend limit, an empty answer);
      // a failed turn's error is the prompt's own answer.
      case "turn_end":
        return event.error && event.exitReason !== "error" ? [chunk("agent_message_chunk", `\n\n[hel: ${event.error}]`)] : [];
      case "text_delta":
        return [chunk("agent_message_chunk", event.text)];
      case "reasoning_delta":
        return [chunk("agent_thought_chunk", event.text)];
      case "message":
        return this.joined(event.message);
      case "tool_start":
        if (!this.open.has(event.callId)) {
          const opened = this.opened({ id: event.callId, type: "function", function: { name: event.name, arguments: event.arguments } });
          return [{ ...opened, status: "in_progress" }];
        }
        return [{ sessionUpdate: "tool_call_update", toolCallId: event.callId, status: "in_progress" }];
      case "tool_output": {
        const shown = ((event.skippedBytes > 0 ? "…\n" : (this.output.get(event.callId) ?? "")) + event.text).slice(-LIVE_OUTPUT_CHARS);
        this.output.set(event.callId, shown);
        return [{ sessionUpdate: "tool_call_update", toolCallId: event.callId, content: [text(shown)] }];
      }
      case "tool_end": {
        this.open.delete(event.callId);
        this.output.delete(event.callId);
        return [callEnded(event.callId, event.isError ? "failed" : "completed", event.result, event.edit, this.projectDir)];
      }
      default:
        return [];
    }
  }

  private opened(call: ToolCall): SessionUpdate & { sessionUpdate: "tool_call" } {
    this.open.set(call.id, { name: call.function.name, args: argsOf(call.function.arguments) });
    return callOpened(call, this.projectDir) as SessionUpdate & { sessionUpdate: "tool_call" };
  }

  /** The answer's calls are shown as soon as the model asks for them; a call whose result came without it running (interrupted) failed. */
  private joined(message: Message): SessionUpdate[] {
    if (message.role === "assistant") return (message.tool_calls ?? []).map((call) => this.opened(call));
    if (message.role !== "tool" || !this.open.has(message.tool_call_id)) return [];
    this.open.delete(message.tool_call_id);
    return [{ sessionUpdate: "tool_call_update", toolCallId: message.tool_call_id, status: "failed", content: [text(unstamped(message.content))] }];
  }

  private planned(event: AgentEvent & { type: "delegation_start" | "delegation_end" }): SessionUpdate {
    const at = this.children.get(event.number);
    if (at === undefined) {
      this.children.set(event.number, this.plan.length);
      this.plan = [...this.plan, { content: event.task, priority: "medium", status: event.type === "delegation_end" ? "completed" : "in_progress" }];
    } else {
      this.plan = this.plan.map((entry, i) => (i === at ? { ...entry, status: event.type === "delegation_end" ? "completed" : "in_progress" } : entry));
    }
    return { sessionUpdate: "plan", entries: [...this.todo, ...this.plan] };
  }
}

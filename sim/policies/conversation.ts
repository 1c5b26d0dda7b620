// What every policy reads and writes: the turn so far (the last user message, the tool calls and results
// after it) and tool calls whose argument names come from the offered tool's JSON schema, so the policies
// follow hel's tools rather than hard-coding their parameters.
import { FOLDED_PREFIX } from "../../src/agent/context/fold.js";
import { unstamped } from "../../src/agent/stamps.js";
import type { ChatRequest, Message, ToolDefinition } from "../../src/wire/messages.js";

/** One tool call made since the last user message, with its result. */
export interface Action {
  name: string;
  args: Record<string, unknown>;
  result: string;
}

/** What marks an instruction as a subagent's task: h11 and fold then play the child's part. */
export const SUBAGENT_MARK = "You are a subagent";

/** hel's note of a fold it made itself: a user message, but not the user's. */
export const isAutoFoldNote = (m: Message): boolean => m.role === "user" && m.content.startsWith(FOLDED_PREFIX);

/** Where the last user message is; hel's own fold notes are not the user's and are passed over. */
export function lastUserIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user" && !isAutoFoldNote(messages[i]!)) return i;
  return -1;
}

/** The last user message's text, without the stamp (`[#N] `) hel opens it with. */
export function lastUserText(req: ChatRequest): string {
  const i = lastUserIndex(req.messages);
  return i < 0 ? "" : unstamped(req.messages[i]!.content as string);
}

/** The tool calls and their results after the last user message, in the order the results came. */
export function actions(req: ChatRequest): Action[] {
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  const out: Action[] = [];
  for (const m of req.messages.slice(lastUserIndex(req.messages) + 1)) {
    if (m.role === "assistant")
      for (const c of m.tool_calls ?? []) {
        let args: Record<string, unknown> = {};
        try {
          const parsed: unknown = JSON.parse(c.function.arguments);
          if (typeof parsed === "object" && parsed !== null) args = parsed as Record<string, unknown>;
        } catch {
          // Malformed arguments stay empty; the result will say what went wrong.
        }
        calls.set(c.id, { name: c.function.name, args });
      }
    if (m.role === "tool") {
      const call = calls.get(m.tool_call_id);
      out.push({ name: call?.name ?? "unknown", args: call?.args ?? {}, result: m.content });
    }
  }
  return out;
}

export function offered(req: ChatRequest, name: string): ToolDefinition | undefined {
  return req.tools?.find((t) => t.function?.name === name);
}

export function props(tool: ToolDefinition | undefined): string[] {
  const p = (tool?.function.parameters as { properties?: Record<string, unknown> } | undefined)?.properties;
  return p && typeof p === "object" ? Object.keys(p) : [];
}

export function pick(names: string[], preferred: string[], pattern: RegExp, fallback: string): string {
  return preferred.find((n) => names.includes(n)) ?? names.find((n) => pattern.test(n)) ?? fallback;
}

export function call(name: string, args: Record<string, unknown>): { name: string; arguments: string } {
  return { name, arguments: JSON.stringify(args) };
}

export function readCall(req: ChatRequest, path: string): { name: string; arguments: string } {
  const names = props(offered(req, "read_file"));
  return call("read_file", { [pick(names, ["path", "file_path", "filepath", "file"], /path|file/i, "path")]: path });
}

export function editCall(req: ChatRequest, path: string, oldText: string, newText: string): { name: string; arguments: string } {
  const names = props(offered(req, "search_replace"));
  return call("search_replace", {
    [pick(names, ["path", "file_path", "filepath", "file"], /path|file/i, "path")]: path,
    [pick(names, ["old_string", "old_text", "old_str", "search", "find", "old"], /^(old|search|find)/i, "old_string")]: oldText,
    [pick(names, ["new_string", "new_text", "new_str", "replacement", "replace", "new"], /^(new|replac)/i, "new_string")]: newText,
  });
}

export function argPath(a: Action): string {
  for (const v of Object.values(a.args)) if (typeof v === "string" && /\.\w+$/.test(v)) return v;
  return "";
}

export const samePath = (a: Action, path: string): boolean => {
  const p = argPath(a).replace(/^\.\//, "");
  return p === path || p.endsWith("/" + path);
};

export function commandCall(req: ChatRequest, command: string): { name: string; arguments: string } {
  return call("run_command", { [pick(props(offered(req, "run_command")), ["command", "cmd"], /command|cmd/i, "command")]: command });
}

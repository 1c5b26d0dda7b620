// Rule-based model policies: each reads the conversation (the last user message and the tool calls and
// results after it) and decides the next turn, so they keep working when a client retries, resumes or
// reorders requests. None looks at the request index. Tool argument names are read from the offered
// tool's JSON schema, so the policies follow hel's tools rather than hard-coding their parameters.
//   echo  answers "echo: <last user message>".
//   demo  fixes the "Helo" typo in fixtures/demo's src/greet.js: read → search_replace → read → answer.
//   h11   the delegation task on fixtures/h11: parent reads services.ini, delegates (or edits itself),
//         checks deploy/api.yaml, answers the port; a child ("You are a subagent") makes the edit.
//   h9    memory: "Remember this identifier: <ID>. Reply with OK." → OK; "What identifier did I ask you
//         to remember?" → the identifier if it is anywhere earlier in the conversation, else "I don't know".
//   episode  an episode to fold: reads each file the instruction names, one call at a time, then (when
//         fold is offered) folds since the first read's result with a note, then answers.
// Every policy answers hel's compaction instruction (a last user message opening "Context compaction:")
// with a structured summary of the user's instructions, quoted verbatim, and no tool calls.
import { COMPACTION_MARK } from "../src/agent/compaction.js";
import { unstamped } from "../src/agent/stamps.js";
import type { ChatRequest, Message, ToolDefinition } from "../src/wire/messages.js";
import type { Policy, PolicyName, SimReply } from "./types.js";

/** One tool call made since the last user message, with its result. */
export interface Action {
  name: string;
  args: Record<string, unknown>;
  result: string;
}

const SUBAGENT_MARK = "You are a subagent";

function lastUserIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return i;
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

function offered(req: ChatRequest, name: string): ToolDefinition | undefined {
  return req.tools?.find((t) => t.function?.name === name);
}

function props(tool: ToolDefinition | undefined): string[] {
  const p = (tool?.function.parameters as { properties?: Record<string, unknown> } | undefined)?.properties;
  return p && typeof p === "object" ? Object.keys(p) : [];
}

function pick(names: string[], preferred: string[], pattern: RegExp, fallback: string): string {
  return preferred.find((n) => names.includes(n)) ?? names.find((n) => pattern.test(n)) ?? fallback;
}

function call(name: string, args: Record<string, unknown>): { name: string; arguments: string } {
  return { name, arguments: JSON.stringify(args) };
}

function readCall(req: ChatRequest, path: string): { name: string; arguments: string } {
  const names = props(offered(req, "read_file"));
  return call("read_file", { [pick(names, ["path", "file_path", "filepath", "file"], /path|file/i, "path")]: path });
}

function editCall(req: ChatRequest, path: string, oldText: string, newText: string): { name: string; arguments: string } {
  const names = props(offered(req, "search_replace"));
  return call("search_replace", {
    [pick(names, ["path", "file_path", "filepath", "file"], /path|file/i, "path")]: path,
    [pick(names, ["old_string", "old_text", "old_str", "search", "find", "old"], /^(old|search|find)/i, "old_string")]: oldText,
    [pick(names, ["new_string", "new_text", "new_str", "replacement", "replace", "new"], /^(new|replac)/i, "new_string")]: newText,
  });
}

function argPath(a: Action): string {
  for (const v of Object.values(a.args)) if (typeof v === "string" && /\.\w+$/.test(v)) return v;
  return "";
}

const samePath = (a: Action, path: string): boolean => {
  const p = argPath(a).replace(/^\.\//, "");
  return p === path || p.endsWith("/" + path);
};

// ---------------------------------------------------------------------------------------------- echo

export const echo: Policy = (req) => ({ content: `echo: ${lastUserText(req)}` });

// ---------------------------------------------------------------------------------------------- demo

export const demo: Policy = (req) => {
  const instruction = lastUserText(req);
  const path = /[\w./-]+\.(?:js|mjs|ts)\b/.exec(instruction)?.[0] ?? "src/greet.js";
  if (!/typo|fix|helo/i.test(instruction))
    return { content: `I can fix the typo in the greeting; ask me: "Fix the typo in the greeting in ${path}".` };
  if (!offered(req, "read_file")) return { content: `I need the read_file tool to look at ${path}.` };

  const acts = actions(req);
  const edits = acts.filter((a) => a.name === "search_replace");
  const last = acts.at(-1);
  if (!last)
    return {
      reasoning: `The user wants the greeting typo in ${path} fixed. I should read the file first.`,
      content: "Let me look at the file first.",
      tool_calls: [readCall(req, path)],
    };
  if (last.name === "read_file") {
    if (last.result.includes("Helo")) {
      if (edits.length >= 2)
        return { content: `I could not fix the typo in ${path}: the edit failed twice (${edits.at(-1)!.result.slice(0, 200)}).` };
      if (!offered(req, "search_replace"))
        return { content: `The greeting in ${path} says "Helo" instead of "Hello", but I have no tool to edit files.` };
      return {
        reasoning: `The greeting says "Helo"; it should be "Hello". Replace that one word.`,
        tool_calls: [editCall(req, path, "Helo", "Hello")],
      };
    }
    if (last.result.includes("Hello")) {
      if (edits.length > 0)
        return {
          reasoning: "The file now reads Hello. Done.",
          content: `Fixed the typo in ${path}: the greeting now says "Hello" instead of "Helo".`,
        };
      return { content: `${path} has no typo in its greeting: it already says "Hello".` };
    }
    const failedReads = acts.filter((a) => a.name === "read_file" && !/Hel+o/.test(a.result)).length;
    if (failedReads >= 2) return { content: `I could not read ${path}: ${last.result.slice(0, 200)}` };
    return { reasoning: "The read failed; try once more.", tool_calls: [readCall(req, path)] };
  }
  // After an edit (successful or not), re-read: the file says whether it worked, and a failed edit is
  // then retried once from fresh content.
  return { reasoning: "Check the file after the edit.", tool_calls: [readCall(req, path)] };
};

// ---------------------------------------------------------------------------------------------- h11

/** The port of `[section]` in an ini text, tolerant of line-number prefixes a read tool may add. */
export function iniPort(text: string, section: string): number | undefined {
  const lines = text.split(/\r?\n/);
  let inSection = false;
  for (const line of lines) {
    const head = /\[([\w.-]+)\]\s*$/.exec(line);
    if (head) {
      inSection = head[1] === section;
      continue;
    }
    const m = inSection ? /\bport\s*=\s*(\d+)/.exec(line) : null;
    if (m) return Number(m[1]);
  }
  return undefined;
}

const yamlPort = (text: string): number | undefined => {
  const m = /(?:^|[\s|→:>])port:\s*(\d+)/m.exec(text);
  return m ? Number(m[1]) : undefined;
};

function h11Child(req: ChatRequest, instruction: string): SimReply {
  const task = instruction.slice(instruction.indexOf(SUBAGENT_MARK));
  const path = /[\w./-]+\.ya?ml\b/.exec(task)?.[0] ?? "deploy/api.yaml";
  const target =
    /\bto\s+`?(?:port:?\s*)?(\d{2,5})\b/i.exec(task)?.[1] ?? [...task.matchAll(/\b(\d{2,5})\b/g)].at(-1)?.[1] ?? undefined;
  if (!target) return { content: `The task does not say which port to set in ${path}.` };
  const acts = actions(req);
  const edits = acts.filter((a) => a.name === "search_replace");
  const last = acts.at(-1);
  if (!last || last.name !== "read_file" || !samePath(last, path))
    return { reasoning: `I need to see ${path} before editing it.`, tool_calls: [readCall(req, path)] };
  const current = yamlPort(last.result);
  if (current === undefined) {
    if (acts.filter((a) => a.name === "read_file").length >= 2) return { content: `I could not find a port line in ${path}.` };
    return { tool_calls: [readCall(req, path)] };
  }
  if (String(current) === target)
    return {
      content:
        edits.length > 0
          ? `Done: ${path} now has \`port: ${target}\` (was \`port: ${yamlPort(acts.find((a) => a.name === "read_file")!.result)}\`).`
          : `${path} already has \`port: ${target}\`; nothing to change.`,
    };
  if (edits.length >= 2) return { content: `I could not change the port in ${path}: ${edits.at(-1)!.result.slice(0, 200)}` };
  return {
    reasoning: `${path} has port ${current}; the task asks for ${target}.`,
    tool_calls: [editCall(req, path, `port: ${current}`, `port: ${target}`)],
  };
}

function h11Parent(req: ChatRequest, instruction: string): SimReply {
  const iniPath = /[\w./-]*services\.ini\b/.exec(instruction)?.[0] ?? "services.ini";
  const yaml = /[\w./-]+\.ya?ml\b/.exec(instruction)?.[0] ?? "deploy/api.yaml";
  const acts = actions(req);
  const iniRead = acts.find((a) => a.name === "read_file" && samePath(a, iniPath) && iniPort(a.result, "api") !== undefined);
  if (!iniRead) {
    if (acts.filter((a) => a.name === "read_file" && samePath(a, iniPath)).length >= 2)
      return { content: `I could not find the api service's port in ${iniPath}.` };
    return {
      reasoning: `First find the api service's port in ${iniPath}.`,
      content: `I'll read ${iniPath} first.`,
      tool_calls: [readCall(req, iniPath)],
    };
  }
  // Parsed from what the tool returned, never assumed.
  const port = iniPort(iniRead.result, "api")!;
  const after = acts.slice(acts.indexOf(iniRead) + 1);
  const delegated = after.some((a) => a.name === "delegate_task");
  if (offered(req, "delegate_task") && !delegated) {
    const names = props(offered(req, "delegate_task"));
    return {
      reasoning: `The api port is ${port}. Hand the edit of ${yaml} to a subagent with everything it needs.`,
      tool_calls: [
        call("delegate_task", {
          [pick(names, ["task", "prompt", "instruction"], /task|prompt/i, "task")]:
            `In the project directory, edit ${yaml}: change the line \`port: 8080\` to \`port: ${port}\` ` +
            `(the api service's port from services.ini is ${port}). Change nothing else. ` +
            `Read the file first; if its port line differs from \`port: 8080\`, replace that line instead. ` +
            `Report the changed line.`,
        }),
      ],
    };
  }
  const last = after.at(-1);
  const edits = after.filter((a) => a.name === "search_replace");
  if (!last || last.name !== "read_file" || !samePath(last, yaml))
    return { reasoning: `Check ${yaml} now.`, tool_calls: [readCall(req, yaml)] };
  const current = yamlPort(last.result);
  if (current === port) return { reasoning: `${yaml} has port ${port}. Answer with the number only.`, content: String(port) };
  if (current === undefined || edits.length >= 2 || !offered(req, "search_replace"))
    return { content: `I could not set the port in ${yaml} to ${port}.` };
  return {
    reasoning: `${yaml} still has port ${current}; set it to ${port}.`,
    tool_calls: [editCall(req, yaml, `port: ${current}`, `port: ${port}`)],
  };
}

export const h11: Policy = (req) => {
  const instruction = lastUserText(req);
  if (!offered(req, "read_file")) return { content: "I need the read_file tool for this task." };
  return instruction.includes(SUBAGENT_MARK) ? h11Child(req, instruction) : h11Parent(req, instruction);
};

// ---------------------------------------------------------------------------------------------- h9

const REMEMBER = /Remember this identifier:\s*(\S+?)\.?(?=\s|$)/i;
const ID_TOKEN = /\bID-[A-Za-z0-9][A-Za-z0-9-]*\b/;

export const h9: Policy = (req) => {
  const instruction = lastUserText(req);
  if (REMEMBER.test(instruction)) return { content: "OK" };
  if (/what identifier did i ask you to remember/i.test(instruction)) {
    // The most recent mention wins, so a later "remember" replaces an earlier one.
    const earlier = req.messages.slice(0, lastUserIndex(req.messages)).reverse();
    for (const m of earlier) {
      const text = m.content ?? "";
      const id = REMEMBER.exec(text)?.[1] ?? ID_TOKEN.exec(text)?.[0];
      if (id) return { content: id };
    }
    return { content: "I don't know" };
  }
  return { content: "OK" };
};

// ------------------------------------------------------------------------------------------- episode

const STAMP_AT_START = /^\[#(\d+)\] /;

export const episode: Policy = (req) => {
  const instruction = lastUserText(req);
  const files = instruction.match(/[\w./-]+\.(?:log|txt|md|js|ts|json|ini|yaml)\b/g) ?? [];
  const acts = actions(req);
  // Once folded, the reads are gone from the view: the episode is over.
  if (acts.some((a) => a.name === "fold" && !/Error:/.test(a.result.slice(0, 40)))) return { content: `done: ${instruction}` };
  const reads = acts.filter((a) => a.name === "read_file");
  const next = files[reads.length];
  if (next !== undefined && offered(req, "read_file")) return { reasoning: `Read ${next}.`, tool_calls: [readCall(req, next)] };
  if (reads.length > 0 && offered(req, "fold")) {
    // The first read's result is the first message of the episode that carries a stamp.
    const after = req.messages.slice(lastUserIndex(req.messages) + 1).find((m) => m.role === "tool");
    const since = after ? STAMP_AT_START.exec(after.content)?.[1] : undefined;
    if (since) {
      return {
        reasoning: "That episode is finished; fold it.",
        tool_calls: [
          call("fold", {
            since: `#${since}`,
            note: {
              changed: "nothing",
              learned: `read ${files.join(", ")}; the build passes once the cache is cleared, and only with NODE_ENV unset`,
              decided: "keep the lockfile; rejected upgrading the compiler",
              open: "nothing",
            },
          }),
        ],
      };
    }
  }
  return { content: `done: ${instruction}` };
};

// ---------------------------------------------------------------------------------------- compaction

/**
 * hel's compaction request, answered as a model would: a summary that keeps the user's words, those
 * an earlier summary quoted included.
 */
function compactionSummary(req: ChatRequest): SimReply {
  const asked = req.messages
    .slice(0, lastUserIndex(req.messages))
    .filter((m) => m.role === "user")
    .flatMap((m) => (m.content.startsWith("[compacted ") ? m.content.split("\n").filter((l) => l.startsWith('- "')) : [`- "${unstamped(m.content)}"`]));
  return {
    reasoning: "Summarize the conversation for the continuation.",
    content: ["## Goal", "Carry on with the user's instructions.", "## User instructions (verbatim)", ...(asked.length > 0 ? asked : ["- (none)"]), "## Next steps", "1. Continue."].join("\n"),
  };
}

/** Every policy answers a compaction request with a summary instead of its own move. */
function answeringCompaction(policy: Policy): Policy {
  return (req, ctx) => (lastUserText(req).startsWith(COMPACTION_MARK) ? compactionSummary(req) : policy(req, ctx));
}

export const POLICIES: Record<PolicyName, Policy> = { echo, demo, h11, h9, episode };

export function resolvePolicy(p: Policy | PolicyName | undefined): Policy {
  if (p === undefined) return answeringCompaction(echo);
  if (typeof p === "function") return answeringCompaction(p);
  const found = POLICIES[p];
  if (!found) throw new Error(`unknown policy ${JSON.stringify(p)}; expected one of ${Object.keys(POLICIES).join(", ")}`);
  return answeringCompaction(found);
}

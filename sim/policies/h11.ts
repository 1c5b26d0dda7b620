// h11: the delegation task on fixtures/h11: the parent reads services.ini, delegates (or edits itself),
// checks deploy/api.yaml and answers the port; a child ("You are a subagent") makes the edit.
import type { ChatRequest } from "../../src/wire/messages.js";
import type { Policy, SimReply } from "../types.js";
import { actions, call, editCall, lastUserText, offered, pick, props, readCall, samePath, SUBAGENT_MARK } from "./conversation.js";

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
  const target = /\bto\s+`?(?:port:?\s*)?(\d{2,5})\b/i.exec(task)?.[1] ?? [...task.matchAll(/\b(\d{2,5})\b/g)].at(-1)?.[1] ?? undefined;
  if (!target) return { content: `The task does not say which port to set in ${path}.` };
  const acts = actions(req);
  const edits = acts.filter((a) => a.name === "search_replace");
  const last = acts.at(-1);
  if (last?.name !== "read_file" || !samePath(last, path)) return { reasoning: `I need to see ${path} before editing it.`, tool_calls: [readCall(req, path)] };
  const current = yamlPort(last.result);
  if (current === undefined) {
    if (acts.filter((a) => a.name === "read_file").length >= 2) return { content: `I could not find a port line in ${path}.` };
    return { tool_calls: [readCall(req, path)] };
  }
  if (String(current) === target)
    return {
      content:
        edits.length > 0 ? `Done: ${path} now has \`port: ${target}\` (was \`port: ${yamlPort(acts.find((a) => a.name === "read_file")!.result)}\`).` : `${path} already has \`port: ${target}\`; nothing to change.`,
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
    if (acts.filter((a) => a.name === "read_file" && samePath(a, iniPath)).length >= 2) return { content: `I could not find the api service's port in ${iniPath}.` };
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
  if (last?.name !== "read_file" || !samePath(last, yaml)) return { reasoning: `Check ${yaml} now.`, tool_calls: [readCall(req, yaml)] };
  const current = yamlPort(last.result);
  if (current === port) return { reasoning: `${yaml} has port ${port}. Answer with the number only.`, content: String(port) };
  if (current === undefined || edits.length >= 2 || !offered(req, "search_replace")) return { content: `I could not set the port in ${yaml} to ${port}.` };
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

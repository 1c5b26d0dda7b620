// Rule-based model policies: each reads the conversation (the last user message and the tool calls and
// results after it) and decides the next turn, so they keep working when a client retries, resumes or
// reorders requests. None looks at the request index. Tool argument names are read from the offered
// tool's JSON schema, so the policies follow hel's tools rather than hard-coding their parameters.
//   echo  answers "echo: <last user message>".
//   demo  fixes the "Helo" typo in fixtures/demo's src/greet.js: read → search_replace → read → answer.
//   h11   the delegation task on fixtures/h11: parent reads services.ini, delegates (or edits itself),
//         checks deploy/api.yaml, answers the port; a child ("You are a subagent") makes the edit.
//   fold  the seed article's fold/fork experiment on fixtures/fold (see its section below).
//   h9    memory: "Remember this identifier: <ID>. Reply with OK." → OK; "What identifier did I ask you
//         to remember?" → the identifier if it is anywhere earlier in the conversation, else "I don't know".
//   build-loop  runs the build of sim/build-loop.ts until it passes, then ordinary steps (see below).
//   episode  an episode to fold: reads each file the instruction names, one call at a time, then (when
//         fold is offered) folds since the first read's result with a note, then answers.
// Every policy answers hel's compaction instruction (a last user message opening "Context compaction:")
// with a structured summary of the user's instructions, quoted verbatim, and no tool calls; and hel's
// auto-fold request ("Fold:") with a note as JSON. hel's own `[folded …]` note is not an instruction.
import { AUTO_FOLD_MARK } from "../src/agent/context/auto-fold.js";
import { COMPACTION_MARK, INSTRUCTIONS_BLOCK } from "../src/agent/context/compaction.js";
import { FOLDED_PREFIX } from "../src/agent/context/fold.js";
import { BUILD_COMMAND } from "./build-loop.js";
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

/** hel's note of a fold it made itself: a user message, but not the user's. */
const isAutoFoldNote = (m: Message): boolean => m.role === "user" && m.content.startsWith(FOLDED_PREFIX);

function lastUserIndex(messages: readonly Message[]): number {
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

// ---------------------------------------------------------------------------------------------- fold

// The seed article's experiment on fixtures/fold, played as the article describes its agent: explore,
// fix the build (a pinned driver, then the autocommit setting whose failure explains that the claim
// must select and claim in one transaction), then move the selection into a helper. The follow-up is
// written to keep the select on the claim's transaction only when the view (a log, a note, a child's
// report, or what recall brought back) still says so; otherwise it moves the select onto the database
// handle, which breaks the queue. It recalls only when a read of the claim carries hel's hint about an
// archived span: an agent whose note lost the constraint has no other reason to look.

const STAMP_OPENING = /^\[#(\d+)\] /;
const unstampedText = (text: string): string => text.replace(STAMP_OPENING, "");
const TRANSACTION_RULE = /\b(?:one|the same|a single) transaction\b/i;
const CLAIM_JS = "queue/claim.js";
const HINT = /\(archived span ([a-z0-9]{4,12}) also touched queue\/claim\.js/;

const CLAIM_HEAD = [
  "async function claimNext(db, worker) {",
  "  const tx = await db.begin();",
  "  try {",
  "    const { rows } = await tx.query(SELECT_NEXT);",
  "    if (rows.length === 0) {",
  "      await tx.commit();",
  "      return null;",
  "    }",
  "    const job = rows[0];",
].join("\n");
/** The helper takes the claim's transaction, so select and claim stay in one. */
const HELPER_ON_TRANSACTION = [
  "async function selectNextJob(tx) {",
  "  const { rows } = await tx.query(SELECT_NEXT);",
  "  return rows.length === 0 ? null : rows[0];",
  "}",
  "",
  "async function claimNext(db, worker) {",
  "  const tx = await db.begin();",
  "  try {",
  "    const job = await selectNextJob(tx);",
  "    if (job === null) {",
  "      await tx.commit();",
  "      return null;",
  "    }",
].join("\n");
/** The helper takes the database handle: its select commits at once, before the claim's transaction. */
const HELPER_ON_HANDLE = [
  "async function selectNextJob(db) {",
  "  const { rows } = await db.query(SELECT_NEXT);",
  "  return rows.length === 0 ? null : rows[0];",
  "}",
  "",
  "async function claimNext(db, worker) {",
  "  const job = await selectNextJob(db);",
  "  if (job === null) return null;",
  "  const tx = await db.begin();",
  "  try {",
].join("\n");

function commandCall(req: ChatRequest, command: string): { name: string; arguments: string } {
  return call("run_command", { [pick(props(offered(req, "run_command")), ["command", "cmd"], /command|cmd/i, "command")]: command });
}

const isBuild = (a: Action): boolean => a.name === "run_command" && /build\.js/.test(String(Object.values(a.args)[0] ?? ""));
const viewText = (req: ChatRequest, upTo = req.messages.length): string => req.messages.slice(0, upTo).map((m) => m.content ?? "").join("\n");

/** The first stamp of this turn's tool results: where an episode that began with this turn's first call starts. */
function firstResultStamp(req: ChatRequest): string | undefined {
  const first = req.messages.slice(lastUserIndex(req.messages) + 1).find((m) => m.role === "tool");
  return first ? STAMP_OPENING.exec(first.content)?.[1] : undefined;
}

const folded = (acts: readonly Action[]): boolean => acts.some((a) => a.name === "fold" && !/^(?:\[#\d+\] )?Error/.test(a.result));

function foldCall(req: ChatRequest, note: { changed: string; learned: string; decided: string; open: string }): SimReply {
  const since = firstResultStamp(req);
  if (!since) return { content: "I have nothing stamped to fold." };
  return { reasoning: "That episode is finished; fold it.", tool_calls: [call("fold", { since: `#${since}`, note })] };
}

/** The build episode: a reply to send, or what the passing build leaves to report. */
function buildEpisode(req: ChatRequest, acts: readonly Action[]): SimReply | { passed: { changed: string; rule: string | undefined } } {
  const builds = acts.filter(isBuild);
  const last = acts.at(-1);
  const lastBuild = builds.at(-1);
  const output = lastBuild ? unstampedText(lastBuild.result) : "";
  const pin = /cannot resolve sqlish@([\w.-]+).*?vendor\/ holds only sqlish-([\w.-]+)/.exec(acts.filter(isBuild).map((a) => a.result).join("\n"));
  const rule = acts.map((a) => /The claim must select and claim in one transaction[^\n]*/.exec(a.result)?.[0]).find(Boolean);
  // What was just read decides the next step even when the build's output before it was compacted away.
  if (last?.name === "read_file" && samePath(last, CLAIM_JS) && !output.startsWith("exit code 0"))
    return { reasoning: "The claim itself is one transaction; the setting breaks it.", tool_calls: [readCall(req, "build.config.json")] };
  if (last?.name === "read_file" && samePath(last, "build.config.json"))
    return { reasoning: "Turn autocommit off.", tool_calls: [editCall(req, "build.config.json", '"autocommit": true', '"autocommit": false')] };
  if (!lastBuild) return { reasoning: "Run the build to see what fails.", tool_calls: [commandCall(req, "node build.js")] };
  if (output.startsWith("exit code 0")) {
    const changed = acts
      .filter((a) => a.name === "search_replace" && !/^(?:\[#\d+\] )?Error/.test(a.result))
      .map((a) => argPath(a))
      .join(", ");
    return { passed: { changed, rule } };
  }
  if (builds.length >= 4) return { content: `I could not make the build pass; its last output ends: ${output.slice(-300)}` };
  if (!last) return { tool_calls: [commandCall(req, "node build.js")] };
  if (isBuild(last)) {
    if (/cannot resolve sqlish@/.test(output)) return { reasoning: "The pinned driver version is not vendored; look at the pin.", tool_calls: [readCall(req, "deps.lock.json")] };
    if (/"autocommit": true/.test(output)) return { reasoning: "Two workers claimed the same job; check the claim, then the setting.", tool_calls: [readCall(req, CLAIM_JS)] };
    return { content: `The build fails in a way I cannot fix: ${output.slice(0, 300)}` };
  }
  if (last.name === "read_file" && samePath(last, "deps.lock.json") && pin)
    return { reasoning: `Pin the vendored ${pin[2]} instead of ${pin[1]}.`, tool_calls: [editCall(req, "deps.lock.json", `"sqlish": "${pin[1]}"`, `"sqlish": "${pin[2]}"`)] };
  return { reasoning: "Build again.", tool_calls: [commandCall(req, "node build.js")] };
}

const BUILD_CHANGES = 'sqlish pinned to 1.4.2 in deps.lock.json (2.0.0 is not vendored and there is no network) and "autocommit": false in build.config.json';

function foldChild(req: ChatRequest, instruction: string): SimReply {
  const acts = actions(req);
  // A fresh child knows nothing of the project yet and reads what the parent had read first.
  const known = /claimNext/.test(viewText(req, lastUserIndex(req.messages)));
  const readme = acts.some((a) => a.name === "read_file" && samePath(a, "README.md"));
  if (!known && !readme) return { reasoning: "I know nothing of this project yet; read its README first.", tool_calls: [readCall(req, "README.md")] };
  if (!/build\.js/.test(instruction)) return { content: "I can only run this project's build." };
  const step = buildEpisode(req, acts.filter((a) => !(a.name === "read_file" && samePath(a, "README.md"))));
  if (!("passed" in step)) return step;
  return { content: `The build passes. Changed: ${BUILD_CHANGES}.${step.passed.rule ? ` Learned: ${step.passed.rule}` : ""}` };
}

function foldExplore(req: ChatRequest, instruction: string): SimReply {
  const acts = actions(req);
  const answer =
    "A worker (runWorker in queue/worker.js) calls claimNext(db, worker) until it returns null; claimNext (queue/claim.js) begins a transaction, " +
    "selects the next queued job with FOR UPDATE SKIP LOCKED, marks it claimed with an UPDATE and commits.";
  if (acts.length === 0)
    return { reasoning: "Read the three files.", tool_calls: ["README.md", CLAIM_JS, "queue/worker.js"].map((p) => readCall(req, p)) };
  if (/fold this exploration/i.test(instruction) && offered(req, "fold") && !folded(acts))
    return foldCall(req, {
      changed: "nothing",
      learned: `${answer} The driver, sqlish, is vendored under vendor/ and pinned in deps.lock.json; its settings are in build.config.json.`,
      decided: "nothing yet",
      open: "the build has not been run",
    });
  return { content: answer };
}

function foldBuild(req: ChatRequest, instruction: string): SimReply {
  const acts = actions(req);
  if (/delegate/i.test(instruction) && offered(req, "delegate_task")) {
    const delegation = acts.find((a) => a.name === "delegate_task");
    if (!delegation) {
      const names = props(offered(req, "delegate_task"));
      return {
        reasoning: "Hand the build to a subagent.",
        tool_calls: [
          call("delegate_task", {
            [pick(names, ["task", "prompt", "instruction"], /task|prompt/i, "task")]:
              "Make this project's build pass: run `node build.js` with run_command and fix what it reports (there is no network). " +
              "Report what you changed, and anything the build taught about the code that later changes must respect.",
          }),
        ],
      };
    }
    return { content: `The subagent made the build pass. Its report: ${unstampedText(delegation.result)}` };
  }
  // A fold has taken the episode out of the view: only the fold's own call and note, or hel's, are left of it.
  if (folded(acts) || req.messages.slice(lastUserIndex(req.messages)).some(isAutoFoldNote)) return { content: `The build passes now: ${BUILD_CHANGES}.` };
  const step = buildEpisode(req, acts);
  if (!("passed" in step)) return step;
  if (/fold the build episode/i.test(instruction) && offered(req, "fold") && !folded(acts))
    return foldCall(req, {
      changed: BUILD_CHANGES,
      learned: `node build.js passes. ${step.passed.rule ?? ""}`.trim(),
      decided: "pin the vendored 1.4.2; rejected: fetching sqlish 2.0.0 (no network)",
      open: "nothing",
    });
  return { content: `The build passes now: ${BUILD_CHANGES}.` };
}

function foldFollowUp(req: ChatRequest): SimReply {
  const acts = actions(req);
  const read = acts.find((a) => a.name === "read_file" && samePath(a, CLAIM_JS));
  if (!read) return { reasoning: `Look at ${CLAIM_JS} first.`, tool_calls: [readCall(req, CLAIM_JS)] };
  const recalled = acts.filter((a) => a.name === "recall" || a.name === "ask");
  const knows = TRANSACTION_RULE.test(viewText(req, lastUserIndex(req.messages))) || recalled.some((a) => TRANSACTION_RULE.test(a.result));
  const hint = HINT.exec(read.result)?.[1];
  if (!knows && hint && recalled.length === 0 && offered(req, "recall"))
    return { reasoning: `An archived span (${hint}) touched this file; check what it says before moving the query.`, tool_calls: [call("recall", { handle: hint, query: "transaction" })] };
  const edits = acts.filter((a) => a.name === "search_replace");
  if (edits.some((a) => /^(?:\[#\d+\] )?Error/.test(a.result))) return { content: `I could not edit ${CLAIM_JS}: ${edits.at(-1)!.result.slice(0, 200)}` };
  if (edits.length === 0)
    return knows
      ? { reasoning: "The select must stay on the claim's transaction: the helper takes the transaction.", tool_calls: [editCall(req, CLAIM_JS, CLAIM_HEAD, HELPER_ON_TRANSACTION)] }
      : { reasoning: "The helper only needs the database.", tool_calls: [editCall(req, CLAIM_JS, CLAIM_HEAD, HELPER_ON_HANDLE)] };
  if (edits.length === 1) return { tool_calls: [editCall(req, CLAIM_JS, "module.exports = { claimNext };", "module.exports = { claimNext, selectNextJob };")] };
  return {
    content: knows
      ? "Done: selectNextJob(tx) in queue/claim.js runs the select on the claim's transaction, so select and claim stay in one transaction; claimNext calls it."
      : "Done: selectNextJob(db) in queue/claim.js selects the next queued job; claimNext calls it and then claims the job.",
  };
}

export const fold: Policy = (req) => {
  const instruction = unstampedText(lastUserText(req));
  if (!offered(req, "read_file")) return { content: "I need the read_file tool for this task." };
  if (instruction.includes(SUBAGENT_MARK)) return foldChild(req, instruction);
  if (/selectNextJob/.test(instruction)) return foldFollowUp(req);
  if (/node build\.js/.test(instruction)) return foldBuild(req, instruction);
  return foldExplore(req, instruction);
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
    .filter((m): m is Extract<Message, { role: "user" }> => m.role === "user" && !isAutoFoldNote(m))
    .flatMap((m) => {
      if (m.content.startsWith("[compacted ")) return m.content.split("\n").filter((l) => l.startsWith('- "'));
      // The instructions a summary request left out to fit, kept as one block: one per paragraph.
      if (m.content.startsWith(INSTRUCTIONS_BLOCK)) return m.content.split("\n\n").slice(1).map((i) => `- "${unstamped(i)}"`);
      return [`- "${unstamped(m.content)}"`];
    });
  return {
    reasoning: "Summarize the conversation for the continuation.",
    content: ["## Goal", "Carry on with the user's instructions.", "## User instructions (verbatim)", ...(asked.length > 0 ? asked : ["- (none)"]), "## Next steps", "1. Continue."].join("\n"),
  };
}

// ------------------------------------------------------------------------------------------ auto-fold

const RULE_LINE = /[^\n]*\b(?:must|only with|only when)\b[^\n]*/gi;

/**
 * hel's auto-fold request, answered as a model would: the note as JSON, with the files the span edited
 * and the lines of its results that state a rule (what a note must not lose).
 */
function autoFoldNote(req: ChatRequest): SimReply {
  const asked = req.messages.findLastIndex((m) => m.role === "user" && m.content.startsWith(AUTO_FOLD_MARK) && !/not the note/.test(m.content));
  const command = /`([^`]+)`/.exec(String(req.messages[asked]?.content ?? ""))?.[1] ?? "the command";
  const span = req.messages.slice(0, asked);
  const edited = new Set<string>();
  const rules = new Set<string>();
  for (const m of span.slice(lastUserIndex(span) + 1)) {
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) if (c.function.name === "search_replace") edited.add(String((JSON.parse(c.function.arguments) as { path?: unknown }).path ?? ""));
    if (m.role === "tool") for (const line of unstamped(String(m.content)).match(RULE_LINE) ?? []) if (rules.size < 3) rules.add(line.trim());
  }
  const note = {
    changed: edited.size > 0 ? [...edited].join(", ") : "nothing",
    learned: [`${command} passes now.`, ...rules].join(" "),
    decided: "kept the fix that made it pass",
    open: "nothing",
  };
  return { reasoning: "Write the note about the finished episode.", content: JSON.stringify(note) };
}

/** Every policy answers hel's compaction and auto-fold requests instead of making its own move. */
function answeringCompaction(policy: Policy): Policy {
  return (req, ctx) => {
    const text = lastUserText(req);
    if (text.startsWith(COMPACTION_MARK)) return compactionSummary(req);
    return text.startsWith(AUTO_FOLD_MARK) ? autoFoldNote(req) : policy(req, ctx);
  };
}

// ---------------------------------------------------------------------------------------- build-loop

/**
 * The build loop of sim/build-loop.ts: an instruction that mentions the build runs it, raises build.cfg's
 * level after each failure and runs it again until it passes; any other instruction reads notes.txt and
 * answers. Nothing here folds: whatever leaves the view is hel's doing.
 */
export const buildLoop: Policy = (req) => {
  const instruction = lastUserText(req);
  const acts = actions(req);
  if (!/\bbuild\b/i.test(instruction)) {
    if (acts.length === 0 && offered(req, "read_file")) return { tool_calls: [readCall(req, "notes.txt")] };
    return { content: `done: ${instruction}` };
  }
  if (req.messages.slice(lastUserIndex(req.messages)).some(isAutoFoldNote)) return { content: "The build passes now." };
  const last = acts.at(-1);
  const builds = acts.filter((a) => a.name === "run_command");
  if (!last) return { tool_calls: [commandCall(req, BUILD_COMMAND)] };
  if (last.name === "run_command") {
    if (/^exit code 0 /.test(unstamped(last.result))) return { content: "The build passes now." };
    // The log names the level, so the next fix is known even when earlier runs were compacted away.
    const level = Number(/failed at level (\d+) of 3/.exec(last.result)?.[1] ?? NaN);
    if (builds.length > 5 || Number.isNaN(level)) return { content: "I could not make the build pass." };
    return { reasoning: "Raise the level, as the log says.", tool_calls: [editCall(req, "build.cfg", `level=${level}`, `level=${level + 1}`)] };
  }
  return { tool_calls: [commandCall(req, BUILD_COMMAND)] };
};

export const POLICIES: Record<PolicyName, Policy> = { echo, demo, h11, h9, episode, fold, "build-loop": buildLoop };

export function resolvePolicy(p: Policy | PolicyName | undefined): Policy {
  if (p === undefined) return answeringCompaction(echo);
  if (typeof p === "function") return answeringCompaction(p);
  const found = POLICIES[p];
  if (!found) throw new Error(`unknown policy ${JSON.stringify(p)}; expected one of ${Object.keys(POLICIES).join(", ")}`);
  return answeringCompaction(found);
}

// fold: the seed article's experiment on fixtures/fold, played as the article describes its agent: explore,
// fix the build (a pinned driver, then the autocommit setting whose failure explains that the claim
// must select and claim in one transaction), then move the selection into a helper. The follow-up is
// written to keep the select on the claim's transaction only when the view (a log, a note, a child's
// report, or what recall brought back) still says so; otherwise it moves the select onto the database
// handle, which breaks the queue. It recalls only when a read of the claim carries hel's hint about an
// archived span: an agent whose note lost the constraint has no other reason to look.
import type { ChatRequest } from "../../src/wire/messages.js";
import type { Policy, SimReply } from "../types.js";
import { actions, argPath, call, commandCall, editCall, isAutoFoldNote, lastUserIndex, lastUserText, offered, pick, props, readCall, samePath, SUBAGENT_MARK, type Action } from "./conversation.js";

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

const isBuild = (a: Action): boolean => a.name === "run_command" && /build\.js/.test(String(Object.values(a.args)[0] ?? ""));
const viewText = (req: ChatRequest, upTo = req.messages.length): string =>
  req.messages
    .slice(0, upTo)
    .map((m) => m.content ?? "")
    .join("\n");

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
  const pin = /cannot resolve sqlish@([\w.-]+).*?vendor\/ holds only sqlish-([\w.-]+)/.exec(
    acts
      .filter(isBuild)
      .map((a) => a.result)
      .join("\n"),
  );
  const rule = acts.map((a) => /The claim must select and claim in one transaction[^\n]*/.exec(a.result)?.[0]).find(Boolean);
  // What was just read decides the next step even when the build's output before it was compacted away.
  if (last?.name === "read_file" && samePath(last, CLAIM_JS) && !output.startsWith("exit code 0"))
    return { reasoning: "The claim itself is one transaction; the setting breaks it.", tool_calls: [readCall(req, "build.config.json")] };
  if (last?.name === "read_file" && samePath(last, "build.config.json")) return { reasoning: "Turn autocommit off.", tool_calls: [editCall(req, "build.config.json", '"autocommit": true', '"autocommit": false')] };
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
  const step = buildEpisode(
    req,
    acts.filter((a) => !(a.name === "read_file" && samePath(a, "README.md"))),
  );
  if (!("passed" in step)) return step;
  return { content: `The build passes. Changed: ${BUILD_CHANGES}.${step.passed.rule ? ` Learned: ${step.passed.rule}` : ""}` };
}

function foldExplore(req: ChatRequest, instruction: string): SimReply {
  const acts = actions(req);
  const answer =
    "A worker (runWorker in queue/worker.js) calls claimNext(db, worker) until it returns null; claimNext (queue/claim.js) begins a transaction, " +
    "selects the next queued job with FOR UPDATE SKIP LOCKED, marks it claimed with an UPDATE and commits.";
  if (acts.length === 0) return { reasoning: "Read the three files.", tool_calls: ["README.md", CLAIM_JS, "queue/worker.js"].map((p) => readCall(req, p)) };
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

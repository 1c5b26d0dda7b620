// The simulator's fold policy on stamped conversations, as hel's fold, recall and hints will send them:
// it folds the build episode since the stamp of its first result with a note that keeps the
// one-transaction rule, folds the exploration when asked, and in the follow-up writes the helper on the
// claim's transaction only when its view (or a recall a hint led to) holds the rule. Called directly:
// these are its decisions on given requests; the suite's run covers it over HTTP.
import { describe, expect, it } from "vitest";
import { fold } from "../../sim/policies.js";
import type { SimReply } from "../../sim/index.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";

const tool = (name: string, props: string[]) => ({
  type: "function" as const,
  function: { name, description: name, parameters: { type: "object", properties: Object.fromEntries(props.map((p) => [p, { type: "string" }])) } },
});
const TOOLS = [tool("read_file", ["path"]), tool("search_replace", ["path", "old_text", "new_text"]), tool("run_command", ["command"]), tool("fold", ["since", "note"]), tool("recall", ["handle", "query"])];
const RULE = "The claim must select and claim in one transaction (BEGIN; SELECT … FOR UPDATE SKIP LOCKED; UPDATE jobs SET status = 'claimed' …; COMMIT): SKIP LOCKED's row lock lasts only until COMMIT.";

let id = 0;
/** A conversation: the system message, `[#1] instruction`, then each call with its stamped result. */
function conversation(instruction: string, steps: [name: string, args: object, result: string][], before: Message[] = []): ChatRequest {
  const messages: Message[] = [{ role: "system", content: "system" }, ...before, { role: "user", content: `[#${before.length + 1}] ${instruction}` }];
  let stamp = before.length + 1;
  for (const [name, args, result] of steps) {
    const callId = `c${++id}`;
    messages.push({ role: "assistant", content: null, tool_calls: [{ id: callId, type: "function", function: { name, arguments: JSON.stringify(args) } }] });
    messages.push({ role: "tool", tool_call_id: callId, content: `[#${++stamp}] ${result}` });
  }
  return { model: "deepseek-flash", messages, tools: TOOLS };
}
/** The fold policy only ever answers; it plays no faults. */
const turn = (req: ChatRequest) => fold(req, { requestIndex: 0 }) as SimReply;
const args = (req: ChatRequest) => JSON.parse(turn(req).tool_calls![0]!.arguments) as Record<string, unknown>;

const BUILD = "Make the build pass: run `node build.js` with run_command and fix what it reports (there is no network). Tell me what you changed.";
const buildEpisode: [string, object, string][] = [
  ["run_command", { command: "node build.js" }, "exit code 1 · 0.10 s\nerror: cannot resolve sqlish@2.0.0: it is pinned in deps.lock.json but vendor/ holds only sqlish-1.4.2, and there is no network to fetch it."],
  ["read_file", { path: "deps.lock.json" }, '1\t{\n2\t  "sqlish": "2.0.0"\n3\t}'],
  ["search_replace", { path: "deps.lock.json" }, "Edited deps.lock.json"],
  ["run_command", { command: "node build.js" }, `exit code 1 · 0.10 s\ncause: build.config.json sets "autocommit": true, so …\n${RULE}\nfix: set "autocommit": false in build.config.json.`],
  ["read_file", { path: "queue/claim.js" }, "…"],
  ["read_file", { path: "build.config.json" }, '"autocommit": true'],
  ["search_replace", { path: "build.config.json" }, "Edited build.config.json"],
  ["run_command", { command: "node build.js" }, "exit code 0 · 0.10 s\nbuild ok: dist/jobs.js (3 modules)"],
];

describe("the fold policy", () => {
  it("fixes the build step by step: the pin from the error, then autocommit", () => {
    expect(args(conversation(BUILD, buildEpisode.slice(0, 2)))).toEqual({ path: "deps.lock.json", old_text: '"sqlish": "2.0.0"', new_text: '"sqlish": "1.4.2"' });
    expect(args(conversation(BUILD, buildEpisode.slice(0, 6)))).toEqual({ path: "build.config.json", old_text: '"autocommit": true', new_text: '"autocommit": false' });
  });

  it("asked to fold, folds the passed build since its first result's stamp, with a note that keeps the rule", () => {
    const call = turn(conversation(`${BUILD} When it passes, fold the build episode with the fold tool.`, buildEpisode)).tool_calls![0]!;
    expect(call.name).toBe("fold");
    const a = JSON.parse(call.arguments) as { since: string; note: Record<string, string> };
    expect(a.since).toBe("#2");
    expect(a.note.learned).toBe(`node build.js passes. ${RULE}`);
    // Once folded, the episode is out of the view and the turn ends with an answer.
    const afterFold = conversation(`${BUILD} When it passes, fold the build episode with the fold tool.`, [["fold", a, "Folded: handle b2e4"]]);
    expect(turn(afterFold)).toEqual({ content: expect.stringMatching(/^The build passes now: sqlish pinned to 1\.4\.2/) });
    // Not asked to fold, it answers what it changed, and the rule is not in the answer.
    const answer = turn(conversation(BUILD, buildEpisode));
    expect(answer.tool_calls).toBeUndefined();
    expect(answer.content).not.toMatch(/one transaction/);
  });

  it("asked to fold the exploration, reads the three files, then folds since the first result", () => {
    const explore = "Read README.md, queue/claim.js and queue/worker.js, and tell me in two sentences how a worker claims a job. Then fold this exploration with the fold tool.";
    expect(turn(conversation(explore, [])).tool_calls!.map((c) => JSON.parse(c.arguments) as unknown)).toEqual([{ path: "README.md" }, { path: "queue/claim.js" }, { path: "queue/worker.js" }]);
    const read = conversation(explore, [["read_file", { path: "README.md" }, "# jobs"]]);
    expect(turn(read).tool_calls![0]!.name).toBe("fold");
    expect(args(read).since).toBe("#2");
  });

  const FOLLOW_UP =
    "Move the job-selection query out of claimNext into its own exported helper function, selectNextJob, in queue/claim.js, so the admin page can reuse it, and make claimNext call it. Keep the change small; I will run the build myself.";
  const summary: Message[] = [{ role: "user", content: "[compacted c0ff] The earlier conversation was compacted; recall reads it.\n## Done\n- the build passes" }];

  it("follow-up: with the rule in view, the helper takes the claim's transaction", () => {
    const noted: Message[] = [
      { role: "user", content: `[#1] earlier` },
      { role: "tool", tool_call_id: "x", content: `[#2] Folded. learned: ${RULE}` },
    ];
    const edit = args(conversation(FOLLOW_UP, [["read_file", { path: "queue/claim.js" }, "…"]], noted));
    expect(edit.new_text).toContain("async function selectNextJob(tx) {\n  const { rows } = await tx.query(SELECT_NEXT);");
  });

  it("follow-up: with a summary that lost the rule and no hint, the helper takes the database handle", () => {
    const edit = args(conversation(FOLLOW_UP, [["read_file", { path: "queue/claim.js" }, "…"]], summary));
    expect(edit.new_text).toContain("async function selectNextJob(db) {\n  const { rows } = await db.query(SELECT_NEXT);");
  });

  it("follow-up: a hint on the claim leads to recall, and what recall brings back decides the helper", () => {
    const hinted: [string, object, string] = ["read_file", { path: "queue/claim.js" }, '…\n(archived span c0ff also touched queue/claim.js: "Goal" — recall {"handle":"c0ff"} reads it)'];
    expect(turn(conversation(FOLLOW_UP, [hinted], summary)).tool_calls![0]).toEqual({ name: "recall", arguments: JSON.stringify({ handle: "c0ff", query: "transaction" }) });
    const recalled = conversation(FOLLOW_UP, [hinted, ["recall", { handle: "c0ff" }, `archive c0ff; 1 matching line:\n${RULE}`]], summary);
    expect(args(recalled).new_text).toContain("async function selectNextJob(tx) {");
  });
});

// The fold suite's judges: the follow-up's code read for the one-transaction rule (a helper on the
// claim's transaction passes, one on the database handle or on a transaction of its own fails), the
// fixture's two-worker test run for real on each version, and the build, recall and note judges on
// recorded requests.
import { execFileSync, spawnSync } from "node:child_process";
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildPassedJudge, noteJudge, recallJudge, sameTransaction, twoWorkersJudge } from "../../evals/fold-judges.js";
import type { JudgeInput } from "../../evals/judges.js";
import type { RecordDir, RequestLine } from "../../evals/records.js";
import { tempProject } from "../helpers/temp-project.js";

const FIXTURE = join(import.meta.dirname, "..", "..", "fixtures", "fold");
const original = await readFile(join(FIXTURE, "queue", "claim.js"), "utf8");

/** The fixture's claimNext up to the job it selected: what each follow-up below replaces. */
const HEAD = original.slice(original.indexOf("async function claimNext"), original.indexOf("const job = rows[0];") + "const job = rows[0];".length);
const withHelper = (head: string) => original.replace(HEAD, head).replace("module.exports = { claimNext };", "module.exports = { claimNext, selectNextJob };");

/** The follow-up as it should be: the helper runs on the claim's transaction. */
const onTransaction = withHelper(`async function selectNextJob(tx) {
  const { rows } = await tx.query(SELECT_NEXT);
  return rows.length === 0 ? null : rows[0];
}

async function claimNext(db, worker) {
  const tx = await db.begin();
  try {
    const job = await selectNextJob(tx);
    if (job === null) {
      await tx.commit();
      return null;
    }`);
/** claimNext after a helper that selects on its own: the claim gets a transaction of its own. */
const CLAIM_AFTER_SELECT = `async function claimNext(db, worker) {
  const job = await selectNextJob(db);
  if (job === null) return null;
  const tx = await db.begin();
  try {`;
/** The select moved onto the database handle: it commits before the claim's transaction begins. */
const onHandle = withHelper(`async function selectNextJob(db) {
  const { rows } = await db.query(SELECT_NEXT);
  return rows.length === 0 ? null : rows[0];
}

${CLAIM_AFTER_SELECT}`);
/** The select in a transaction of its own, committed before the claim's. */
const ownTransaction = withHelper(`async function selectNextJob(db) {
  const tx = await db.begin();
  const { rows } = await tx.query(SELECT_NEXT);
  await tx.commit();
  return rows.length === 0 ? null : rows[0];
}

${CLAIM_AFTER_SELECT}`);

/** A copy of the fixture with its build fixed (the pin and the setting), and `claim` as queue/claim.js. */
async function fixedProject(claim: string): Promise<string> {
  const dir = await tempProject();
  await cp(FIXTURE, dir, { recursive: true });
  await writeFile(join(dir, "deps.lock.json"), '{\n  "sqlish": "1.4.2"\n}\n');
  const config = await readFile(join(dir, "build.config.json"), "utf8");
  await writeFile(join(dir, "build.config.json"), config.replace('"autocommit": true', '"autocommit": false'));
  await writeFile(join(dir, "queue", "claim.js"), claim);
  return dir;
}

const twoWorkers = (dir: string) => {
  const r = spawnSync(process.execPath, ["test/two-workers.js"], { cwd: dir, encoding: "utf8" });
  return { code: r.status, output: r.stdout + r.stderr };
};
const judgeInput = (over: Partial<JudgeInput>): JudgeInput => ({ records: [], files: {}, params: {}, ...over });

describe("the one-transaction judges on the follow-up's code", () => {
  it("texts differ from the fixture (the replacements applied)", () => {
    expect(HEAD).toMatch(/^async function claimNext\(db, worker\) \{\n[\s\S]*const job = rows\[0\];$/);
    for (const t of [onTransaction, onHandle, ownTransaction]) expect(t).toContain("selectNextJob");
  });

  it("pass the fixture's claim and a helper that runs on the claim's transaction, by the code and by two real workers", async () => {
    for (const claim of [original, onTransaction]) {
      expect(sameTransaction({ "queue/claim.js": claim })).toMatchObject({ pass: true, detail: "select and claim both run on `tx`, from the one db.begin()" });
      const result = twoWorkers(await fixedProject(claim));
      expect(result).toEqual({ code: 0, output: "ok: 60 jobs, each claimed once\n" });
      expect(twoWorkersJudge.judge(judgeInput({ checks: { "two-workers": result } }))).toEqual({ pass: true, detail: "ok: 60 jobs, each claimed once" });
    }
  });

  it("fail a helper whose select runs on the database handle: by the code, and two workers claim the same jobs", async () => {
    expect(sameTransaction({ "queue/claim.js": onHandle })).toEqual({
      pass: false,
      detail: "`db.query(…)` runs the select outside the transaction: each such statement commits on its own",
    });
    const result = twoWorkers(await fixedProject(onHandle));
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/^FAIL: job 1 was claimed by worker B and worker A\n/);
    expect(twoWorkersJudge.judge(judgeInput({ checks: { "two-workers": result } }))).toEqual({ pass: false, detail: "exit 1: FAIL: job 1 was claimed by worker B and worker A" });
  });

  it("fail a helper that selects in a transaction of its own, committed before the claim's", async () => {
    expect(sameTransaction({ "queue/claim.js": ownTransaction })).toEqual({ pass: false, detail: "the queue's code begins 2 transactions; the select and the claim need one" });
    expect(twoWorkers(await fixedProject(ownTransaction)).code).toBe(1);
  });

  it("fail when the claim file is gone or the select is no longer there, and when the two-worker test did not run", () => {
    expect(sameTransaction({ "queue/claim.js": null })).toEqual({ pass: false, detail: "queue/claim.js is missing" });
    expect(sameTransaction({ "queue/claim.js": original.replace(" FOR UPDATE SKIP LOCKED", "") }).detail).toBe("no query runs the SELECT … FOR UPDATE SKIP LOCKED");
    expect(twoWorkersJudge.judge(judgeInput({}))).toEqual({ pass: false, detail: "the two-worker test did not run" });
  });

  it("the fixture's build fails on the pin, then on autocommit with the rule, then passes", async () => {
    const dir = await tempProject();
    await cp(FIXTURE, dir, { recursive: true });
    const build = () => spawnSync(process.execPath, ["build.js"], { cwd: dir, encoding: "utf8" });
    expect(build()).toMatchObject({ status: 1, stdout: expect.stringContaining("error: cannot resolve sqlish@2.0.0") });
    await writeFile(join(dir, "deps.lock.json"), '{ "sqlish": "1.4.2" }\n');
    expect(build()).toMatchObject({ status: 1, stdout: expect.stringContaining("The claim must select and claim in one transaction") });
    const config = await readFile(join(dir, "build.config.json"), "utf8");
    await writeFile(join(dir, "build.config.json"), config.replace('"autocommit": true', '"autocommit": false'));
    expect(execFileSync(process.execPath, ["build.js"], { cwd: dir, encoding: "utf8" })).toMatch(/build ok: dist\/jobs\.js \(3 modules\)\n$/);
  });
});

// ------------------------------------------------------------------------------ records-based judges

let nextId = 0;
const assistantCall = (name: string, args: object) => {
  const id = `call_${++nextId}`;
  return { id, message: { role: "assistant" as const, content: null, tool_calls: [{ id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } }] } };
};
const toolResult = (id: string, content: string) => ({ role: "tool" as const, tool_call_id: id, content });
const line = (agent: "parent" | "child", messages: RequestLine["body"]["messages"]): RequestLine => ({
  agent,
  ...(agent === "child" ? { delegation: 1 } : {}),
  status: 200,
  hit_ratio: null,
  duration_ms: 1,
  body: { model: "deepseek-flash", messages },
});
const dir = (requests: RequestLine[], over: Partial<RecordDir> = {}): RecordDir => ({ dir: "/r", record: null, requests, delegations: [], problems: [], ...over });

describe("the build, recall and note judges on recorded requests", () => {
  const sys = { role: "system" as const, content: "system" };
  const user = { role: "user" as const, content: "[#1] Make the build pass" };

  it("build: passes when a later request shows the build's result opening with exit code 0, whoever ran it", () => {
    const failed = assistantCall("run_command", { command: "node build.js" });
    const passed = assistantCall("run_command", { command: "node build.js" });
    const requests = [
      line("child", [sys, user, failed.message, toolResult(failed.id, "[#2] exit code 1 · 0.10 s\nerror: cannot resolve")]),
      line("child", [sys, user, failed.message, toolResult(failed.id, "[#2] exit code 1 · 0.10 s"), passed.message, toolResult(passed.id, "[#3] exit code 0 · 0.10 s\nbuild ok")]),
    ];
    expect(buildPassedJudge.judge(judgeInput({ records: [dir(requests)] }))).toEqual({ pass: true, detail: "the build passed in the child's run 2" });
    expect(buildPassedJudge.judge(judgeInput({ records: [dir(requests.slice(0, 1))] }))).toEqual({ pass: false, detail: "the build ran 1 times and never exited 0" });
    expect(buildPassedJudge.judge(judgeInput({ records: [dir([])] }))).toEqual({ pass: false, detail: "no run_command ran the build" });
  });

  const calls = (names: string[]) => names.map((name) => ({ agent: "parent" as const, name, arguments: JSON.stringify(name === "search_replace" ? { path: "queue/claim.js" } : { handle: "b2e4" }), is_error: false }));
  const withCalls = (names: string[]): RecordDir =>
    dir([], {
      record: {
        session_id: "s",
        answer: "done",
        exit_reason: "completed",
        requests: 0,
        usage: { total: zero, parent: zero, child: zero, by_agent: [] },
        tool_calls: calls(names),
        instructions: [],
        context: [],
        hooks: [],
      },
    });
  const zero = { requests: 0, prompt_tokens: 0, completion_tokens: 0, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 0, cost_usd: 0 };

  it("recall: passes only when recall or ask came before the first edit of the claim", () => {
    expect(recallJudge.judge(judgeInput({ records: [withCalls(["recall", "search_replace"])] }))).toEqual({ pass: true, detail: "recall before the edit" });
    expect(recallJudge.judge(judgeInput({ records: [withCalls(["search_replace", "recall"])] }))).toEqual({ pass: false, detail: "no recall or ask before the edit" });
    expect(recallJudge.judge(judgeInput({ records: [withCalls(["recall"])] }))).toEqual({ pass: false, detail: "the parent never edited queue/claim.js" });
  });

  it("note: the fold note's text must keep the rule; a note that only says the build works does not", () => {
    const note = (learned: string) => assistantCall("fold", { since: "#2", note: { changed: "deps.lock.json", learned, decided: "-", open: "-" } });
    const kept = note("node build.js passes. The claim must select and claim in one transaction: SKIP LOCKED's row lock lasts until COMMIT.");
    const lost = note("node build.js passes; the claim query works.");
    expect(noteJudge.judge(judgeInput({ records: [dir([line("parent", [sys, user, kept.message, toolResult(kept.id, "[#9] Folded")])])] }))).toEqual({ pass: true, detail: "the fold note keeps it" });
    expect(noteJudge.judge(judgeInput({ records: [dir([line("parent", [sys, user, lost.message, toolResult(lost.id, "[#9] Folded")])])] }))).toEqual({ pass: false, detail: "the fold note does not say it" });
    const summary = { role: "user" as const, content: "[compacted c0ff] The earlier conversation was compacted.\n## Done\n- the build passes" };
    expect(noteJudge.judge(judgeInput({ records: [dir([line("parent", [sys, summary])])] }))).toEqual({ pass: false, detail: "the compaction summary does not say it" });
    expect(noteJudge.judge(judgeInput({ records: [dir([line("parent", [sys, user])])] }))).toEqual({ pass: false, detail: "no note: nothing was folded, compacted or delegated" });
  });
});

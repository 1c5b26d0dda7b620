// The evals judges as pure functions: on passing runs and on each way a run can fail.
import { describe, expect, it } from "vitest";
import { answerContainsJudge, callTouches, delegationFlowJudge, exactAnswerJudge, runJudges, yamlTopLevel, yamlValueJudge, type JudgeInput } from "../../evals/judges.js";
import type { RecordDir, RecordJson, RecordedToolCall } from "../../evals/records.js";

const totals = { requests: 0, prompt_tokens: 0, completion_tokens: 0, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 0, cost_usd: 0 };
function recordDir(over: Partial<RecordJson> | null, dir = "/runs/r"): RecordDir {
  const record: RecordJson | null =
    over === null
      ? null
      : {
          session_id: "s",
          answer: "8143",
          exit_reason: "completed",
          requests: 0,
          usage: { total: totals, parent: totals, child: totals, by_agent: [] },
          tool_calls: [],
          instructions: [],
          context: [],
          hooks: [],
          ...over,
        };
  return { dir, record, requests: [], delegations: [], problems: record ? [] : ["record.json is missing"] };
}
const tc = (agent: "parent" | "child", name: string, args: object, is_error = false): RecordedToolCall => ({
  agent,
  ...(agent === "child" ? { delegation: 1 } : {}),
  name,
  arguments: JSON.stringify(args),
  is_error,
});
const YAML = "deploy/api.yaml";
const goodFlow: RecordedToolCall[] = [
  tc("parent", "read_file", { path: "services.ini" }),
  tc("child", "read_file", { path: YAML }),
  tc("child", "search_replace", { path: YAML, old_text: "port: 8080", new_text: "port: 8143" }),
  tc("parent", "delegate_task", { task: "set the port to 8143" }),
  tc("parent", "read_file", { path: "./deploy/api.yaml" }),
];
const input = (records: RecordDir[], files: Record<string, string | null> = {}, params: Record<string, string> = {}): JudgeInput => ({ records, files, params });

describe("h11 judges", () => {
  const flow = delegationFlowJudge(YAML);
  const file = yamlValueJudge(YAML, "port", "8143");
  const answer = exactAnswerJudge("8143");

  it("pass a run that delegated once, whose child edited and whose parent read back", () => {
    const verdicts = runJudges([file, answer, flow], input([recordDir({ tool_calls: goodFlow })], { [YAML]: "name: api\nport: 8143\nenv:\n  port: 1\n" }));
    expect(Object.values(verdicts).map((v) => v.pass)).toEqual([true, true, true]);
  });

  it("flow fails with no delegation (the parent edited the file itself)", () => {
    const calls = [tc("parent", "read_file", { path: "services.ini" }), tc("parent", "search_replace", { path: YAML }), tc("parent", "read_file", { path: YAML })];
    expect(flow.judge(input([recordDir({ tool_calls: calls })]))).toEqual({ pass: false, detail: "the parent called delegate_task 0 times, expected once" });
  });

  it("flow fails with two delegations", () => {
    const calls = [...goodFlow.slice(0, 4), tc("parent", "delegate_task", { task: "again" }), goodFlow[4]!];
    expect(flow.judge(input([recordDir({ tool_calls: calls })])).detail).toMatch(/2 times/);
  });

  it("flow fails when the child's edit failed, touched another file, or never happened", () => {
    const failed = goodFlow.map((c) => (c.name === "search_replace" ? { ...c, is_error: true } : c));
    expect(flow.judge(input([recordDir({ tool_calls: failed })]))).toMatchObject({ pass: false, detail: expect.stringMatching(/failed or edited another file/) });
    const other = goodFlow.map((c) => (c.name === "search_replace" ? tc("child", "search_replace", { path: "deploy/web.yaml" }) : c));
    expect(flow.judge(input([recordDir({ tool_calls: other })])).pass).toBe(false);
    const none = goodFlow.filter((c) => c.name !== "search_replace");
    expect(flow.judge(input([recordDir({ tool_calls: none })])).detail).toMatch(/made no search_replace/);
  });

  it("flow fails when the parent edited instead of its child, or read the file only before delegating", () => {
    const parentEdit = goodFlow.map((c) => (c.name === "search_replace" ? { ...c, agent: "parent" as const, delegation: undefined } : c));
    expect(flow.judge(input([recordDir({ tool_calls: parentEdit })])).pass).toBe(false);
    const readBefore = [tc("parent", "read_file", { path: YAML }), ...goodFlow.slice(0, 4)];
    expect(flow.judge(input([recordDir({ tool_calls: readBefore })])).detail).toBe(`the parent did not read ${YAML} after the delegation`);
  });

  it("flow fails, with a reason, when there is no record.json (a killed run)", () => {
    expect(flow.judge(input([recordDir(null, "/runs/killed")])).detail).toMatch(/no record.json in \/runs\/killed/);
  });

  it("the file judge fails on a yaml left at 8080, a missing file, or a missing key", () => {
    expect(file.judge(input([], { [YAML]: "name: api\nport: 8080\n" }))).toEqual({ pass: false, detail: "port: 8080, expected 8143" });
    expect(file.judge(input([], { [YAML]: null }))).toEqual({ pass: false, detail: `${YAML} is missing` });
    expect(file.judge(input([], { [YAML]: "name: api\n  port: 8143\n" })).detail).toMatch(/no top-level port/);
    expect(file.judge(input([], { [YAML]: 'port: "8143"  # the api\n' })).pass).toBe(true);
  });

  it("the answer judge wants exactly 8143: an explanation around it fails", () => {
    expect(answer.judge(input([recordDir({ answer: " 8143\n" })])).pass).toBe(true);
    expect(answer.judge(input([recordDir({ answer: "The port is now 8143." })]))).toEqual({ pass: false, detail: 'answered "The port is now 8143."' });
    expect(answer.judge(input([recordDir({ answer: "8080" })])).pass).toBe(false);
    expect(answer.judge(input([recordDir({ answer: null, exit_reason: "max_steps" })])).detail).toBe("no final answer (exit reason max_steps)");
    expect(answer.judge(input([])).detail).toBe("no hel process ran");
  });
});

describe("h9 judge", () => {
  const judge = answerContainsJudge("identifier");
  const params = { identifier: "cedar-4827-3fa9c1d2e0b4" };
  it("passes when the last process's answer contains the identifier anywhere", () => {
    const records = [recordDir({ answer: "OK" }, "/r/first"), recordDir({ answer: "It was cedar-4827-3fa9c1d2e0b4." }, "/r/second")];
    expect(judge.judge(input(records, {}, params)).pass).toBe(true);
  });
  it("fails on UNKNOWN, on a near miss, and when the second process left no record", () => {
    expect(judge.judge(input([recordDir({ answer: "UNKNOWN" })], {}, params)).pass).toBe(false);
    expect(judge.judge(input([recordDir({ answer: "cedar-4827-3fa9c1d2e0b" })], {}, params)).pass).toBe(false);
    // The identifier was answered by the first process only: the run's answer is the last process's.
    const records = [recordDir({ answer: "cedar-4827-3fa9c1d2e0b4" }, "/r/first"), recordDir(null, "/r/second")];
    expect(judge.judge(input(records, {}, params)).detail).toMatch(/no record.json in \/r\/second/);
    expect(judge.judge(input([recordDir({ answer: "x" })], {}, {})).detail).toBe("the run has no identifier");
  });
});

describe("helpers", () => {
  it("callTouches matches relative, ./ and absolute paths ending in the file, never a longer name", () => {
    expect(callTouches({ arguments: '{"path":"deploy/api.yaml"}' }, YAML)).toBe(true);
    expect(callTouches({ arguments: '{"path":"/tmp/p/deploy/api.yaml"}' }, YAML)).toBe(true);
    expect(callTouches({ arguments: '{"path":"deploy/api.yaml.bak"}' }, YAML)).toBe(false);
    expect(callTouches({ arguments: '{"path":"xdeploy/api.yaml"}' }, YAML)).toBe(false);
    expect(callTouches({ arguments: "not json" }, YAML)).toBe(false);
  });
  it("yamlTopLevel reads top-level keys only", () => {
    expect(yamlTopLevel("a: 1\nport: 8143 # x\n", "port")).toBe("8143");
    expect(yamlTopLevel("env:\n  port: 1\n", "port")).toBeUndefined();
  });
  it("a judge that throws becomes a failed verdict", () => {
    const broken = {
      id: "x",
      title: "x",
      description: "x",
      judge: () => {
        throw new Error("boom");
      },
    };
    expect(runJudges([broken], input([]))).toEqual({ x: { pass: false, detail: "the judge failed: boom" } });
  });
});

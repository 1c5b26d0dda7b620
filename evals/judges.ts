// Judges: pure functions from what a run left behind — its parsed record directories and the project
// files the suite names, read after the run — to a verdict with a one-line reason. They never touch the
// disk or the network, so they are tested directly on passing and failing runs.
import type { RecordDir, RecordedToolCall } from "./records.js";

export interface JudgeInput {
  /** The run's record directories, one per hel process, in the order the processes ran. */
  records: readonly RecordDir[];
  /** The project files the suite asked for, as they were after the run; null when missing. */
  files: Readonly<Record<string, string | null>>;
  /** What the run was given, e.g. h9's identifier. */
  params: Readonly<Record<string, string>>;
  /** The suite's checks, run in the project after the run (fold: the two-worker test), by id. */
  checks?: Readonly<Record<string, CheckOutcome>>;
}

export interface CheckOutcome {
  /** Null when the check was killed (it has a time limit). */
  code: number | null;
  /** stdout and stderr together. */
  output: string;
}

export interface Verdict {
  pass: boolean;
  detail: string;
}

export interface Judge {
  /** Stable key used in summary.json. */
  id: string;
  /** Column title in the summary table: a few words. */
  title: string;
  /** What it checks, one sentence. */
  description: string;
  judge(input: JudgeInput): Verdict;
}

const pass = (detail: string): Verdict => ({ pass: true, detail });
const fail = (detail: string): Verdict => ({ pass: false, detail });
const clip = (text: string, n = 80): string => {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

/** The answer the run ended with: the last process's final answer, or why there is none. */
export function finalAnswer(records: readonly RecordDir[]): { answer: string } | { missing: string } {
  const last = records.at(-1);
  if (!last) return { missing: "no hel process ran" };
  if (!last.record) return { missing: `no record.json in ${last.dir} (was the process killed?)` };
  if (last.record.answer === null) return { missing: `no final answer (exit reason ${last.record.exit_reason ?? "unknown"})` };
  return { answer: last.record.answer };
}

/** The file's top-level `key:` value in a YAML text, or undefined. */
export function yamlTopLevel(text: string, key: string): string | undefined {
  const m = new RegExp(`^${key}:[ \\t]*(.*?)[ \\t]*(?:#.*)?$`, "m").exec(text);
  return m ? m[1]!.replace(/^(["'])(.*)\1$/, "$2") : undefined;
}

/** `path` has the top-level `key: value`. */
export function yamlValueJudge(path: string, key: string, value: string): Judge {
  return {
    id: "file",
    title: `${key} ${value}`,
    description: `${path} has the top-level line \`${key}: ${value}\`.`,
    judge: ({ files }) => {
      const text = files[path];
      if (text === null || text === undefined) return fail(`${path} is missing`);
      const found = yamlTopLevel(text, key);
      if (found === undefined) return fail(`${path} has no top-level ${key}`);
      return found === value ? pass(`${key}: ${found}`) : fail(`${key}: ${found}, expected ${value}`);
    },
  };
}

/** The final answer, trimmed, is exactly `expected`. */
export function exactAnswerJudge(expected: string): Judge {
  return {
    id: "answer",
    title: `answer ${expected}`,
    description: `the final answer, trimmed, is exactly \`${expected}\`.`,
    judge: ({ records }) => {
      const a = finalAnswer(records);
      if ("missing" in a) return fail(a.missing);
      return a.answer.trim() === expected ? pass(`answered ${expected}`) : fail(`answered ${JSON.stringify(clip(a.answer))}`);
    },
  };
}

/** The final answer contains the run's parameter `param` (h9: the identifier), anywhere. */
export function answerContainsJudge(param: string): Judge {
  return {
    id: "answer",
    title: `answer has ${param}`,
    description: `the final answer contains the run's ${param}, anywhere.`,
    judge: ({ records, params }) => {
      const wanted = params[param];
      if (!wanted) return fail(`the run has no ${param}`);
      const a = finalAnswer(records);
      if ("missing" in a) return fail(a.missing);
      return a.answer.includes(wanted) ? pass(`answered ${JSON.stringify(clip(a.answer))}`) : fail(`answered ${JSON.stringify(clip(a.answer))} without ${wanted}`);
    },
  };
}

/** Whether a tool call's arguments name `path` (relative, `./`-prefixed, or absolute inside a project). */
export function callTouches(call: { arguments: string }, path: string): boolean {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return false;
  }
  if (typeof args !== "object" || args === null) return false;
  return Object.values(args).some((v) => {
    if (typeof v !== "string") return false;
    const p = v.trim().replace(/^\.\//, "");
    return p === path || p.endsWith(`/${path}`);
  });
}

/**
 * The delegation flow of H11: the parent called delegate_task exactly once; the child of that delegation
 * edited `path` with search_replace (successfully); the parent then read `path` itself. The order comes
 * from record.json's tool_calls, where a delegate_task call is listed when it ends, after its child's calls.
 */
export function delegationFlowJudge(path: string): Judge {
  return {
    id: "flow",
    title: "delegation flow",
    description: `the parent called delegate_task exactly once, that child edited ${path} with search_replace, and the parent read ${path} after the delegation.`,
    judge: ({ records }) => {
      const calls: RecordedToolCall[] = [];
      for (const r of records) {
        if (!r.record) return fail(`no record.json in ${r.dir} (was the process killed?)`);
        calls.push(...r.record.tool_calls);
      }
      const delegations = calls.filter((c) => c.agent === "parent" && c.name === "delegate_task");
      if (delegations.length !== 1) return fail(`the parent called delegate_task ${delegations.length} times, expected once`);
      const delegateAt = calls.indexOf(delegations[0]!);
      const childEdit = calls.slice(0, delegateAt).find((c) => c.agent === "child" && c.name === "search_replace" && !c.is_error && callTouches(c, path));
      if (!childEdit) {
        const tried = calls.filter((c) => c.agent === "child" && c.name === "search_replace").length;
        return fail(tried ? `the child's search_replace on ${path} failed or edited another file` : `the child made no search_replace on ${path}`);
      }
      const readBack = calls.slice(delegateAt + 1).some((c) => c.agent === "parent" && c.name === "read_file" && !c.is_error && callTouches(c, path));
      if (!readBack) return fail(`the parent did not read ${path} after the delegation`);
      return pass(`1 delegation (child ${delegations[0]!.is_error ? "errored" : "answered"}), child edited ${path}, parent read it back`);
    },
  };
}

export function runJudges(judges: readonly Judge[], input: JudgeInput): Record<string, Verdict> {
  const out: Record<string, Verdict> = {};
  for (const j of judges) {
    try {
      out[j.id] = j.judge(input);
    } catch (e) {
      out[j.id] = fail(`the judge failed: ${(e as Error).message}`);
    }
  }
  return out;
}

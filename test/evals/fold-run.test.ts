// `evals run fold` end to end, offline: the real entry runs every condition this hel can run against
// the simulator's fold policy, on fresh copies of fixtures/fold. Asserts each condition's verdicts, that
// the seven conditions are either run or left out with a reason, what the children were sent (exact
// message lists), the cost columns against the raw request lines, and the cost model filled with the
// measured sizes, in the summary and from `evals cost-model --from`.
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { costModel } from "../../evals/cost-model.js";
import type { RequestLine } from "../../evals/records.js";
import { readHelOffer } from "../../evals/runner.js";
import { measuredParams } from "../../evals/fold-measures.js";
import type { Summary } from "../../evals/results.js";
import { DEFAULT_PRICES } from "../../src/model/prices.js";
import { tempProject } from "../helpers/temp-project.js";

const EVALS = join(import.meta.dirname, "..", "..", "out", "evals", "main.js");
const RUN = ["inline", "compaction", "fold", "fresh-child", "fork", "fork-folded", "auto-fold"];
/** build, one txn (code), two workers, recall before acting, note kept constraint. */
const EXPECTED: Record<string, [boolean, boolean, boolean, boolean, boolean]> = {
  inline: [true, true, true, false, false],
  // The summary keeps what was done, not the rule the build taught: the follow-up breaks the claim.
  compaction: [true, false, false, true, false],
  fold: [true, true, true, false, true],
  "fresh-child": [true, true, true, false, true],
  fork: [true, true, true, false, true],
  "fork-folded": [true, true, true, false, true],
  // hel's own note keeps the rule line the build printed, so the follow-up keeps the transaction.
  "auto-fold": [true, true, true, false, true],
};

let out: string;
let stdout: string;
let summary: Summary;
const lines = async (condition: string): Promise<RequestLine[]> =>
  (await readFile(join(out, "fold", condition, "run-1", "raw", "requests.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as RequestLine);

beforeAll(async () => {
  out = await tempProject();
  const env = { ...process.env, DEEPSEEK_API_KEY: "sk-must-not-be-used" };
  stdout = execFileSync(process.execPath, [EVALS, "run", "fold", "--conditions", RUN.join(","), "--out", out], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  summary = JSON.parse(await readFile(join(out, "fold", "summary.json"), "utf8")) as Summary;
});

describe("evals run fold, offline", () => {
  it("reads what the built hel offers from its --help: the tools --tools takes and the long flags", () => {
    const hel = readHelOffer();
    expect([...hel.tools]).toEqual(expect.arrayContaining(["read_file", "search_replace", "run_command", "grep", "find_files"]));
    expect([...hel.flags]).toEqual(expect.arrayContaining(["--delegate", "--tools", "--record", "--max-steps"]));
    expect(hel.tools.has("none")).toBe(false);
  });

  it("runs the conditions asked for, with no problems", () => {
    expect(summary.conditions.map((c) => c.condition)).toEqual(RUN);
    expect(summary.skipped).toEqual([]);
    expect(summary.problems).toEqual([]);
    expect(stdout).toContain("## Cost");
    expect(stdout).toContain("## The article's cost model, filled with these runs");
  });

  it("judges each condition as its policy plays it", () => {
    const judges = ["build", "txn-code", "two-workers", "recall", "note"];
    for (const row of summary.conditions) {
      const expected = EXPECTED[row.condition];
      if (!expected) continue;
      expect(
        judges.map((j) => row.passed[j] === 1),
        row.condition,
      ).toEqual(expected);
    }
  });

  it("a fork's child is sent the parent's view, a fresh child only the system message, each then the task", async () => {
    for (const condition of ["fork", "fresh-child"]) {
      const rs = await lines(condition);
      const c = rs.findIndex((r) => r.agent === "child");
      const delegating = rs.slice(0, c).findLast((r) => r.agent === "parent")!;
      const child = rs[c]!.body.messages;
      const inherited = condition === "fork" ? delegating.body.messages : delegating.body.messages.slice(0, 1);
      expect(child.slice(0, -1)).toEqual(inherited);
      expect(child.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining("Make this project's build pass: run `node build.js`") });
    }
  });

  it("cost columns: the largest prompt, off-peak dollars and fresh-token equivalents, from the raw request lines", async () => {
    const price = DEFAULT_PRICES.models["deepseek-flash"]!;
    for (const row of summary.conditions) {
      const rs = (await lines(row.condition)).filter((r) => r.usage);
      const sum = (f: (u: NonNullable<RequestLine["usage"]>) => number) => rs.reduce((s, r) => s + f(r.usage!), 0);
      expect(row.cost.peak_prompt_tokens).toBe(Math.max(...rs.map((r) => r.usage!.prompt_tokens)));
      expect(row.cost.fresh_equivalent).toBeCloseTo(0.1 * sum((u) => u.prompt_cache_hit_tokens) + 1.25 * sum((u) => u.prompt_cache_miss_tokens), 9);
      const usd = sum((u) => u.prompt_cache_hit_tokens * price.cache_hit + (u.prompt_tokens - u.prompt_cache_hit_tokens) * price.cache_miss + u.completion_tokens * price.output) / 1e6;
      expect(row.cost.usd).toBeCloseTo(usd, 12);
    }
  });

  it("measures the children: a fork starts from the parent's view, a fresh child re-reads what the parent had read", async () => {
    const fork = summary.conditions.find((c) => c.condition === "fork")!.measures;
    const fresh = summary.conditions.find((c) => c.condition === "fresh-child")!.measures;
    const forkChild = (await lines("fork")).filter((r) => r.agent === "child");
    expect(fork.child_first_prompt).toBe(forkChild[0]!.usage!.prompt_tokens);
    expect(fork.child_requests).toBe(forkChild.length);
    // Both read the claim during the build; only the fresh child reads the README the parent had read.
    expect(fork.child_reread).toBeGreaterThan(0);
    expect(fresh.child_reread).toBeGreaterThan(fork.child_reread!);
    expect(measuredParams(summary).params.reread).toBe(fresh.child_reread! - fork.child_reread!);
    expect(fork.child_first_prompt).toBeGreaterThan(fresh.child_first_prompt!);
  });

  it("fills the article's cost model with the measured sizes, in the summary and from `evals cost-model --from`", () => {
    const { params, measured } = measuredParams(summary);
    const fork = summary.conditions.find((c) => c.condition === "fork")!.measures;
    expect(params.prefix).toBe(fork.child_first_prompt);
    expect(measured).toMatchObject({ prefix: "fork", system: "fresh-child", turns: "fresh-child", added: "fresh-child", reread: "fresh-child − fork" });
    const model = costModel(params, 1);
    const totals = `| **total (fresh-token equivalents)** |  | **${model.fork.total.toLocaleString("en-US")}** | **${model.fresh.total.toLocaleString("en-US")}** | **${model.foldedFork.total.toLocaleString("en-US")}** |`;
    expect(stdout).toContain(totals);
    const printed = execFileSync(process.execPath, [EVALS, "cost-model", "--from", join(out, "fold", "summary.json")], { encoding: "utf8" });
    expect(printed).toContain(totals);
    expect(printed).toContain(`fork (prefix ${Math.round(params.prefix).toLocaleString("en-US")})`);
    expect(printed).toContain(`fork / fresh child: ${model.forkToFresh.toFixed(2)}×`);
  });

  it("`evals cost-model --from` refuses a file that is not a fold summary", () => {
    const bad = (() => {
      try {
        execFileSync(process.execPath, [EVALS, "cost-model", "--from", EVALS], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
        return null;
      } catch (e) {
        return e as { status: number; stderr: string };
      }
    })();
    expect(bad?.status).toBe(2);
    expect(bad?.stderr).toBe(`evals: ${EVALS} is not JSON — give the summary.json an \`evals run fold\` wrote\n`);
  });
});

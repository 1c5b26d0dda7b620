// Work that would run away ends in bounded time, and Ctrl-C ends it sooner, the built CLI against the
// simulator on real files: a grep pattern that backtracks catastrophically, globs with ten and thirteen
// `**` segments in grep and find_files, and review_changes over large rewrites. Each run has a
// deadline after which the test kills hel, so a search that spins fails the test instead of hanging it.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { collect, startHel, type HelResult } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
/** More than the searches' own limit, far less than a runaway search takes. */
const DEADLINE_MS = 40_000;

/** Runs hel; kills it at the deadline (the result then has signal SIGKILL); `during` runs while it lives. */
async function runBounded(args: string[], during?: (child: ReturnType<typeof startHel>) => Promise<void>): Promise<HelResult> {
  const child = startHel({ args, baseUrl: sim!.url });
  const done = collect(child);
  const killer = setTimeout(() => child.kill("SIGKILL"), DEADLINE_MS);
  try {
    if (during) await during(child);
    return await done;
  } finally {
    clearTimeout(killer);
  }
}

/** Ctrl-C `afterMs` after the first answer came, while the call it asked for runs. */
const interruptAfterFirstAnswer = (afterMs: number) => async (child: ReturnType<typeof startHel>) => {
  await waitFor(() => sim!.requests.length === 1 && sim!.requests[0]!.status === 200, "the first answer");
  await sleep(afterMs);
  child.kill("SIGINT");
};

/** The tool result the model got in the second request. */
function secondToolResult(): string {
  const body = sim!.requests[1]?.body as ChatRequest | undefined;
  const last = body?.messages.at(-1);
  return last?.role === "tool" ? String(last.content) : "(no second request)";
}

async function runawayProject(): Promise<string> {
  const dir = await tempProject();
  await writeFile(join(dir, "letters.txt"), `${"a".repeat(41)}b\n`);
  // 40 nested directories named a, with a file at the bottom.
  const deep = join(dir, ...Array.from({ length: 40 }, () => "a"));
  await mkdir(deep, { recursive: true });
  await writeFile(join(deep, "b"), "needle\n");
  return dir;
}

const deepGlob = (segments: number) => `${"**/a/".repeat(segments)}x`;

describe("searches that would run away", () => {
  it.each([
    ["grep", { pattern: "^(a+)+$" }, /^\[#2\] Error: grep was stopped: \/\^\(a\+\)\+\$\/ ran for \d+ s on one part of letters\.txt without finishing, so it backtracks catastrophically/],
    ["grep", { pattern: "needle", glob: deepGlob(10) }, /^\[#2\] Error: the glob "(\*\*\/a\/){10}x" was stopped after matching the one path (a\/){40}b /],
    ["find_files", { pattern: deepGlob(13) }, /^\[#2\] Error: the glob "(\*\*\/a\/){13}x" was stopped after matching the one path (a\/){40}b /],
  ])("%s %j ends with an error result naming what ran away", async (tool, args, expected) => {
    sim = await startSimulator({ script: [{ tool_calls: [call(tool, args)] }, { content: "gave up" }] });
    const dir = await runawayProject();
    const result = await runBounded(["-C", dir, "--tools", tool, "--json", "search"]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(secondToolResult()).toMatch(expected);
    expect(JSON.parse(result.stdout)).toMatchObject({ answer: "gave up", exit_reason: "completed" });
  });

  it.each([
    ["grep", { pattern: "^(a+)+$" }],
    ["find_files", { pattern: deepGlob(13) }],
  ])("Ctrl-C during %s %j ends the instruction at once", async (tool, args) => {
    sim = await startSimulator({ script: [{ tool_calls: [call(tool, args)] }, { content: "never asked" }] });
    const dir = await runawayProject();
    // The call has started; well inside the searches' own limit.
    const result = await runBounded(["-C", dir, "--tools", tool, "--json", "search"], interruptAfterFirstAnswer(500));
    expect(result.signal).toBeNull();
    expect(result.code).toBe(130);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "aborted" });
    expect(sim.requests).toHaveLength(1);
  });
});

describe("review_changes over large rewrites", () => {
  const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "init.defaultBranch=main", "-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });
  const FILES = Array.from({ length: 8 }, (_, i) => `f${i}.txt`);
  const lines = (text: (i: number) => string) => Array.from({ length: 22_000 }, (_, i) => `${text(i)}\n`).join("");
  const REVIEW = { verdict: "correct", findings: [] };

  /** Eight committed 22k-line files, every line of which the model's first turn rewrites (as a command would). */
  async function rewrittenRepo(): Promise<string> {
    const dir = await tempProject();
    for (const name of FILES)
      await writeFile(
        join(dir, name),
        lines((i) => `line ${i} of ${name}, as it was committed`),
      );
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "start");
    return dir;
  }
  const rewrite = (dir: string) => {
    for (const name of FILES)
      writeFileSync(
        join(dir, name),
        lines((i) => `row ${i} in the rewritten ${name}`),
      );
  };

  it("answers, the diff bounded and the files past its limit named", async () => {
    const dir = await rewrittenRepo();
    const steps = [{ tool_calls: [call("review_changes", {})] }, { content: JSON.stringify(REVIEW) }, { content: "reviewed" }];
    sim = await startSimulator({
      policy: (_req, { requestIndex }) => {
        if (requestIndex === 0) rewrite(dir);
        return steps[requestIndex]!;
      },
    });
    const result = await runBounded(["-C", dir, "--delegate", "task-only", "--json", "rewrite everything"]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    const reviewer = (sim.requests[1]!.body as ChatRequest).messages[1]!.content as string;
    expect(reviewer).toContain(`Also changed, not shown: ${FILES.join(", ")}. Read them with your tools.`);
    expect(JSON.parse(result.stdout)).toMatchObject({ answer: "reviewed", exit_reason: "completed" });
  });

  it("stops on Ctrl-C", async () => {
    const dir = await rewrittenRepo();
    const steps = [{ tool_calls: [call("review_changes", {})] }, { faults: [{ kind: "stall" as const, ms: 30_000 }], reply: { content: JSON.stringify(REVIEW) } }];
    sim = await startSimulator({
      policy: (_req, { requestIndex }) => {
        if (requestIndex === 0) rewrite(dir);
        return steps[requestIndex]!;
      },
    });
    const result = await runBounded(["-C", dir, "--delegate", "task-only", "--json", "rewrite everything"], interruptAfterFirstAnswer(200));
    expect(result.signal).toBeNull();
    expect(result.code).toBe(130);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "aborted" });
  });
});

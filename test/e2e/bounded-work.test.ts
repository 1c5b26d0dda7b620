// Work that would run away ends in bounded time, and Ctrl-C ends it sooner, the built CLI against the
// simulator on real files: a grep pattern that backtracks catastrophically, globs with ten and thirteen
// `**` segments in grep and find_files, and review_changes over large rewrites. Each run has a
// deadline after which the test kills hel, so a search that spins fails the test instead of hanging it.
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
    const result = await runBounded(["-C", dir, "--tools", tool, "--json", "search"], async (child) => {
      await waitFor(() => sim!.requests.length === 1 && sim!.requests[0]!.status === 200, "the first answer");
      // The call has started; well inside the searches' own limit.
      await sleep(500);
      child.kill("SIGINT");
    });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(130);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "aborted" });
    expect(sim.requests).toHaveLength(1);
  });
});

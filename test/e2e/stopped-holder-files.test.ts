// A holder stopped while its subagent waits on the model, past its lease's expiry: another process takes
// the session over and leaves its own child transcript. The stopped one, woken, finishes its child and
// folds, but writes none of it into the session: children/1.json stays the new holder's, and no archive
// of the old holder's appears.
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type SimStep, type Simulator } from "../../sim/index.js";
import { lastUserText } from "../../sim/policies.js";
import { loadSnapshot, saveSnapshot } from "../../src/session/snapshot-file.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { collect, runHel, startHel } from "../helpers/hel.js";
import { ageLocks } from "../helpers/kill-runs.js";
import { makeSnapshot } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });

/** Each turn delegates its task, then folds the episode from its instruction on, then answers. */
function policy(req: ChatRequest): SimStep {
  const child = /Task:\n(Task [AB])/.exec(lastUserText(req))?.[1];
  if (child) return { content: `${child} done` };
  const last = req.messages.findLastIndex((m) => m.role === "user");
  const turn = /^\[#(\d+)\] (turn [AB])$/.exec(req.messages[last]!.content as string);
  const results = req.messages.slice(last).filter((m) => m.role === "tool").length;
  if (!turn) return { content: "?" };
  const task = turn[2] === "turn A" ? "Task A" : "Task B";
  if (results === 0) return { tool_calls: [call("delegate_task", { task: `${task}: report done.` })] };
  if (results === 1) return { tool_calls: [call("fold", { since: `#${turn[1]}`, note: { changed: "nothing", learned: `${task} is done`, decided: "-", open: "-" } })] };
  return { content: `${turn[2]} answered` };
}

it("a holder stopped past its lease's expiry writes no child transcript and no archive after waking", { timeout: 120_000 }, async () => {
  sim = await startSimulator({ policy });
  const project = await tempProject();
  const id = "aaaa3333-3333-4333-8333-333333333333";
  await saveSnapshot(project, makeSnapshot(project, id));
  const args = (turn: string) => ["-C", project, "--resume", id, "--delegate", "task-only", "--tools", "read_file,fold", "--effort", "none", turn];
  const a = startHel({ args: args("turn A"), baseUrl: sim.url });
  const aDone = collect(a);
  // Stopped while its child's request is out: the answer waits in the socket until it wakes.
  await waitFor(() => sim.requests.some((r) => lastUserText(r.body as ChatRequest).includes("Task A: report done.")), "A's child's request");
  a.kill("SIGSTOP");
  // A, stopped, cannot touch its lease: it is aged past its expiry, as waiting it out would.
  await ageLocks(project);
  const b = await runHel({ args: args("turn B"), baseUrl: sim.url });
  expect(b.code).toBe(0);
  const session = join(project, ".hel", "sessions", id);
  const transcript = await readFile(join(session, "children", "1.json"), "utf8");
  expect(JSON.parse(transcript)).toMatchObject({ number: 1, task: "Task B: report done.", answer: "Task B done" });
  const handles = (await loadSnapshot(project, id)).archive.map((e) => e.handle);
  expect(handles).toHaveLength(1);

  a.kill("SIGCONT");
  const aResult = await aDone;
  expect(aResult.code).toBe(1);
  expect(aResult.stderr).toMatch(new RegExp(`hel: lost the lease on session ${id} — `));
  // A's child ended after A woke, and A went on to fold: it had a transcript and an archive to write.
  const aSent = sim.requests.map((r) => r.body as ChatRequest).filter((body) => body.messages.some((m) => m.role === "user" && m.content.endsWith("] turn A")));
  expect(aSent.some((body) => body.messages.some((m) => m.role === "tool" && m.content.includes("Task A done")))).toBe(true);
  // The fold took the turn's instruction into the archive: its note is what the next request holds.
  expect(sim.requests.some((r) => (r.body as ChatRequest).messages.some((m) => m.role === "tool" && m.content.includes("handle: ") && m.content.includes("Task A is done")))).toBe(true);
  expect(await readFile(join(session, "children", "1.json"), "utf8")).toBe(transcript);
  // Only B's archive: nothing A folded reached the session.
  const archives = existsSync(join(session, "archive")) ? await readdir(join(session, "archive")) : [];
  expect(archives).toEqual(handles.map((h) => `${h}.json`));
});

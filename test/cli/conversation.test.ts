// One conversation as every input mode opens it (conversation/conversation.ts), in this process against the
// simulator: the interactive prompt's controls write the session's one record of its request
// settings, which the next request is built from and the snapshot keeps; the model's fold joins the
// archive from the loop itself, before any reader of the events; a child started by a tool call runs
// with the settings of the agent that called it; the front end's readers, handed in, are its only views.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { episode } from "../../sim/policies.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { openTestConversation } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";
import { steadyIds } from "../helpers/simulators.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const snapshotOf = async (dir: string, id: string) => JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8"));

it("/model and /effort change the one record: the next request is built from it, and the snapshot keeps it", async () => {
  sim = await startSimulator({ script: [{ content: "one" }, { content: "two" }] });
  const dir = await tempProject();
  const hel = await openTestConversation({ sim, args: ["-C", dir, "--effort", "high"], interactive: true });
  await hel.instruct("first");
  const { controls, session } = hel.conversation;
  controls.setModel("deepseek-v4-pro");
  controls.setEffort("none");
  expect([controls.model, controls.effort]).toEqual(["deepseek-v4-pro", "none"]);
  await hel.instruct("second");
  await hel.close();
  const [first, second] = hel.bodies();
  expect(first).toMatchObject({ model: "deepseek-flash", thinking: { type: "enabled" }, reasoning_effort: "high", max_tokens: 65536 });
  expect(second).toMatchObject({ model: "deepseek-v4-pro", thinking: { type: "disabled" }, max_tokens: 8192 });
  expect(second).not.toHaveProperty("reasoning_effort");
  expect((await snapshotOf(dir, session.id)).request_config).toMatchObject({ model: "deepseek-v4-pro", effort: "none", max_output_tokens: 8192 });
  expect(hel.stderr()).toContain(`session ${session.id} — resume with: hel --resume ${session.id} -C ${dir}`);
});

/** The episode policy with tool call ids that depend only on the conversation. */
const steady = steadyIds(episode);

it("a fold is in the archive index as the loop reports it, before any reader sees the event", async () => {
  sim = await startSimulator({ policy: steady });
  const dir = await tempProject();
  await writeFile(join(dir, "a.log"), "error TS2304: cannot find name 'x'\n");
  await writeFile(join(dir, "b.log"), "build passed after clearing the cache\n");
  const hel = await openTestConversation({ sim, args: ["-C", dir, "--tools", "read_file,search_replace,fold,recall"] });
  const { session } = hel.conversation;
  const indexedAtEvent: number[] = [];
  // A reader that comes after every other one still finds the span indexed when the fold is reported.
  const observe = session.observe.bind(session);
  Object.assign(session, {
    observe: (event: AgentEvent) => {
      if (event.type === "fold") indexedAtEvent.push(session.archive.entries.length);
      return observe(event);
    },
  });
  await hel.instruct("look at a.log and b.log");
  await hel.close();
  expect(indexedAtEvent).toEqual([1]);
  const snapshot = await snapshotOf(dir, session.id);
  expect(snapshot.archive).toEqual([expect.objectContaining({ kind: "fold", first_stamp: 2, last_stamp: 3 })]);
  expect(JSON.parse(await readFile(join(dir, ".hel", "sessions", session.id, "archive", `${snapshot.archive[0].handle}.json`), "utf8"))).toMatchObject({ kind: "fold" });
});

it("a child's first request carries the calling agent's settings and tool list, byte for byte", async () => {
  const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
  sim = await startSimulator({ script: [{ tool_calls: [call("delegate_task", { task: "say hi" })] }, { content: "hi" }, { content: "done" }] });
  const dir = await tempProject();
  const hel = await openTestConversation({ sim, args: ["-C", dir, "--delegate", "task-only", "--effort", "low", "--max-output-tokens", "3000"] });
  await hel.instruct("go");
  await hel.close();
  const [parent, child] = hel.bodies();
  const { messages: _, ...settings } = parent!;
  expect(child).toEqual({ ...settings, messages: [parent!.messages[0], { role: "user", content: expect.stringMatching(/^\[#2\] /) }] });
  expect(JSON.stringify(child!.tools)).toBe(JSON.stringify(parent!.tools));
  expect(child).toMatchObject({ reasoning_effort: "low", max_tokens: 3000 });
});

it("an instruction sent again after a connection error is stored once, and its request is the one it would have sent the first time", async () => {
  // Every try of the first sending finds the connection reset; the second sending is answered.
  const reset = { fault: { kind: "reset" as const } };
  sim = await startSimulator({ script: [reset, reset, reset, reset, { content: "fixed" }] });
  const dir = await tempProject();
  const hel = await openTestConversation({ sim, args: ["-C", dir], interactive: true });
  const failed = await hel.instruct("fix the build");
  expect([failed.exitReason, failed.error]).toEqual(["error", expect.stringMatching(/^cannot reach .* after 4 tries/)]);
  expect(sim.requests.map((r) => r.status)).toEqual([0, 0, 0, 0]);
  expect((await hel.instruct("fix the build")).answer).toBe("fixed");
  await hel.close();
  const bodies = hel.bodies();
  expect(bodies).toHaveLength(5);
  // The retry sends the same bytes as every try of the first sending: one instruction, stamped once.
  for (const body of bodies) expect(JSON.stringify(body)).toBe(JSON.stringify(bodies[0]));
  expect(bodies[4]!.messages.slice(1)).toEqual([{ role: "user", content: "[#1] fix the build" }]);
  const snapshot = await snapshotOf(dir, hel.conversation.session.id);
  expect(snapshot.messages.slice(1)).toEqual([{ role: "user", content: "[#1] fix the build" }, expect.objectContaining({ role: "assistant", content: "fixed" })]);
  expect(snapshot.turns).toEqual([{ n: 1, stamp: 1, preview: "fix the build" }]);
  expect(snapshot.last_turn).toEqual({ exit_reason: "completed" });
});

it("a different instruction after a failed one is a turn of its own; the failed one stays, once", async () => {
  const reset = { fault: { kind: "reset" as const } };
  sim = await startSimulator({ script: [reset, reset, reset, reset, { content: "done" }] });
  const dir = await tempProject();
  const hel = await openTestConversation({ sim, args: ["-C", dir], interactive: true });
  await hel.instruct("fix the build");
  await hel.instruct("fix the build, and the tests");
  await hel.close();
  expect(hel.bodies()[4]!.messages.slice(1)).toEqual([
    { role: "user", content: "[#1] fix the build" },
    { role: "user", content: "[#2] fix the build, and the tests" },
  ]);
});

it("a front end hands in its readers: each event reaches them once the ledger has counted it, a turn ends once they have shown it, and the conversation draws nothing of its own", async () => {
  sim = await startSimulator({ script: [{ content: "hi" }] });
  const dir = await tempProject();
  const read: string[] = [];
  const counted: number[] = [];
  let flushes = 0;
  const hel = await openTestConversation({
    sim,
    args: ["-C", dir],
    frontEnd: {
      readers: async ({ ledger, sessionId }) => [
        (event) => {
          read.push(event.type === "turn_end" ? `turn_end of ${sessionId()}` : event.type);
          if (event.type === "response") counted.push(ledger.run().total.prompt_tokens);
        },
      ],
      flush: async () => void flushes++,
    },
  });
  await hel.instruct("go");
  expect(flushes).toBe(1);
  await hel.close();
  const { id } = hel.conversation.session;
  expect(read).toContain("response");
  expect(read.at(-1)).toBe(`turn_end of ${id}`);
  expect(counted).toEqual([expect.any(Number)]);
  expect(counted[0]).toBeGreaterThan(0);
  // No view, no answer, no usage line: only the conversation's closing line.
  expect(hel.stdout()).toBe("");
  expect(hel.stderr()).toBe(`session ${id} — resume with: hel --resume ${id} -C ${dir}\n`);
});

// Ctrl-C while three subagents of the built CLI wait on the model stops all three, and every call gets
// its result. The rest of parallel subagents runs in this process (test/cli/parallel-children.test.ts).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { Message } from "../../src/wire/messages.js";
import { startSimulator, type SimStep, type Simulator } from "../../sim/index.js";
import { collect, startHel } from "../helpers/hel.js";
import { parallelPolicy } from "../helpers/parallel-policy.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

let sim: Simulator;
afterEach(async () => sim?.close());

it("Ctrl-C while three children wait on the model stops all three, and every call gets its result", async () => {
  const tasks = ["A", "B", "C"].map((x) => ({ task: `Task ${x}: wait.` }));
  const stalled = (): SimStep => ({ faults: [{ kind: "delay", ms: 60_000 }], reply: { content: "too late" } });
  sim = await startSimulator({ policy: parallelPolicy(tasks, { A: stalled, B: stalled, C: stalled }) });
  const project = await tempProject();
  const out = await tempProject();
  const child = startHel({ args: ["-C", project, "--delegate", "task-only", "--record", out, "--json-events", "Wait three times at once."], baseUrl: sim.url });
  const done = collect(child);
  await waitFor(() => sim.requests.length === 4, "the three children's requests to arrive");
  child.kill("SIGINT");
  const result = await done;
  expect(result.code).toBe(130);
  const events = result.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(events.at(-1)).toMatchObject({ type: "turn_end", agent: "parent", exit_reason: "aborted", answer: null });
  // The parent's conversation holds a result for each of its three calls, in call order.
  const parentMessages = events.filter((e) => e.type === "message" && e.agent === "parent").map((e) => e.message as Message);
  const callIds = parentMessages.find((m) => m.role === "assistant")!.tool_calls!.map((c) => c.id);
  expect(parentMessages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content])).toEqual(
    // The tasks took #2–#4; the results #5–#7, in call order.
    callIds.map((id, i) => [id, `[#${i + 5}] Error: the subagent did not finish (aborted: aborted). Do the task yourself, or delegate a smaller, clearer task.`]),
  );
  // No child asked again after the signal, and each ended as aborted.
  expect(sim.requests).toHaveLength(4);
  const delegations = (await readFile(join(out, "raw", "delegations.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(delegations.map((d) => [d.delegation, d.exit_reason]).sort()).toEqual([
    [1, "aborted"],
    [2, "aborted"],
    [3, "aborted"],
  ]);
});

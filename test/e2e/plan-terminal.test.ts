// Plan mode and the todo list in a real pseudo-terminal, as a person uses them: Shift+Tab puts the
// prompt in plan mode (its word before the prompt), the todo list shows in the live region while the
// turn runs, the model's edit is refused, and once it ends with its plan hel asks with one key: n
// keeps planning, e puts the go instruction on the prompt to add to, y goes on at once; /plan switches
// plan mode too. Every request has the same system prompt and tool list, and each plan-mode
// instruction alone carries the plan-mode note.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { GO_INSTRUCTION, PLAN_NOTE } from "../../src/agent/plan-mode.js";
import { tempProject } from "../helpers/temp-project.js";
import { count, inTerminal } from "../helpers/terminal.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
});

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
const EDIT = call("search_replace", { path: "a.txt", old_text: "one", new_text: "two" });
const QUESTION = "[y] go · [e] edit · [n] keep planning";

it("Shift+Tab plans, the todo list shows while the turn runs, and the plan question's n, e and y keep planning, edit the go, and go", async () => {
  const project = await tempProject();
  await writeFile(join(project, "a.txt"), "one\n");
  sim = await startSimulator({
    script: [
      {
        tool_calls: [
          call("todo", {
            items: [
              { text: "read a.txt", status: "done" },
              { text: "plan the change", status: "in_progress" },
            ],
          }),
          EDIT,
        ],
      },
      { content: "plan A" },
      { content: "plan B" },
      { tool_calls: [EDIT] },
      { content: "edited" },
      { content: "plan C" },
      { content: "went" },
    ],
  });
  const t = inTerminal(["-C", project, "--effort", "none"], sim.url, {}, 120);
  await t.until((s) => count(s, "› ") >= 1, "the prompt");
  t.type("\x1b[Z");
  await t.until((s) => s.includes("plan › "), "plan mode's prompt");
  t.type("look\r");
  await t.until((s) => s.includes(QUESTION), "the first plan question");
  // The list was drawn in the live region while the turn ran (the region is gone once it ended).
  expect(t.bytes()).toContain("todo: 1 done, 1 in progress, 0 pending");
  expect(t.bytes()).toContain("▸ plan the change");
  expect(t.screen()).toContain("plan A");
  expect(await readFile(join(project, "a.txt"), "utf8")).toBe("one\n");

  t.type("n");
  await t.until((s) => count(s, "plan › ") >= 2, "plan mode's prompt again");
  t.type("again\r");
  await t.until((s) => count(s, QUESTION) === 2, "the second plan question");
  t.type("e");
  await t.until((s) => s.includes(`› ${GO_INSTRUCTION}`), "the go instruction on the prompt");
  t.type("and run the tests\r");
  await t.until((s) => s.includes("edited"), "the go's answer");
  expect(await readFile(join(project, "a.txt"), "utf8")).toBe("two\n");

  t.type("/plan\r");
  await t.until((s) => s.includes("plan mode on:"), "/plan's line");
  t.type("once more\r");
  await t.until((s) => count(s, QUESTION) === 3, "the third plan question");
  t.type("y");
  await t.until((s) => s.includes("went"), "the go's answer");
  t.type("\x04");
  expect(await t.exited).toBe(0);

  const bodies = sim.requests.map((r) => r.body as ChatRequest);
  expect(bodies).toHaveLength(7);
  for (const body of bodies) {
    expect(body.tools).toEqual(bodies[0]!.tools);
    expect(body.messages[0]).toEqual(bodies[0]!.messages[0]);
  }
  const lastUser = (body: ChatRequest) => String(body.messages.findLast((m) => m.role === "user")!.content).replace(/^\[#\d+\] /, "");
  expect(bodies.map(lastUser)).toEqual([
    `look${PLAN_NOTE}`,
    `look${PLAN_NOTE}`,
    `again${PLAN_NOTE}`,
    `${GO_INSTRUCTION} and run the tests`,
    `${GO_INSTRUCTION} and run the tests`,
    `once more${PLAN_NOTE}`,
    GO_INSTRUCTION,
  ]);
  expect(String(bodies[1]!.messages.at(-1)!.content)).toMatch(/^\[#\d+\] Error: plan mode: search_replace was not run/);
});

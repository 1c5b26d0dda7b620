// The kinds of child as rows of one table: a child's tools are its parent's list in the same order,
// with what its row refuses (and the delegation tools, for every child) answering with a refusal; a
// row is all a new kind needs, and a named agent's row is derived from the delegate's.
import { expect, it } from "vitest";
import { z } from "zod";
import { childTools } from "../../../src/agent/children/child-tools.js";
import { CHILD_KIND_ROWS, childLabel, namedAgentRow, rowOf, type ChildKindRow } from "../../../src/agent/children/kinds.js";
import type { Tool } from "../../../src/tools/types.js";
import { detachedContext } from "../../../src/tools/detached-context.js";

const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({ name, description: name, schema: z.unknown(), spill: true, run: async () => `${name} ran`, ...extra });
const PARENT = [tool("read_file"), tool("search_replace"), tool("fold"), tool("ask"), tool("delegate_task"), tool("review_changes")];
const ctx = detachedContext("/p", "edit", "x");

/** What each of the parent's tools answers in a child of this row: "ran", or the refusal's first words. */
async function answers(row: ChildKindRow): Promise<string[]> {
  const tools = childTools(PARENT, row);
  expect(tools.map((t) => t.name)).toEqual(PARENT.map((t) => t.name));
  return Promise.all(
    tools.map((t) =>
      t.run({}, ctx).then(
        (text) => text,
        (e: Error) => e.message.split(":")[0]!,
      ),
    ),
  );
}

it("a delegate refuses only the tools that start delegations and reviews", async () => {
  const depth = "a subagent cannot delegate or start a review (depth limit reached). Do this task yourself with your other tools.";
  expect(await answers(CHILD_KIND_ROWS.delegate)).toEqual(["read_file ran", "search_replace ran", "fold ran", "ask ran", depth, depth]);
});

it("a reviewer refuses what only edits, and runs with read-only access; a question refuses fold and ask, and keeps no archive", async () => {
  expect((await answers(CHILD_KIND_ROWS.review)).slice(0, 4)).toEqual(["read_file ran", "you are the reviewer", "fold ran", "ask ran"]);
  expect(CHILD_KIND_ROWS.review).toMatchObject({ access: "read-only", keepsArchive: true });
  expect((await answers(CHILD_KIND_ROWS.ask)).slice(0, 4)).toEqual(["read_file ran", "search_replace ran", "you are answering a question about the archive", "you are answering a question about the archive"]);
  expect(CHILD_KIND_ROWS.ask.keepsArchive).toBe(false);
});

it("labels a delegation by its mode and every other child by its kind", () => {
  expect([childLabel({ kind: "delegate", mode: "task-only" }), childLabel({ kind: "review", mode: null }), childLabel({ kind: "ask", mode: null })]).toEqual(["task-only", "review", "ask"]);
});

it("a named agent's row is a delegate's that refuses the tools its file does not list, with its file's access", async () => {
  const agent = { name: "explorer", description: "x", mode: "full", tools: ["read_file", "ask"], model: null, maxSteps: null, access: "read-only", instructions: "" } as const;
  const refusal = "the agent explorer may not use search_replace";
  const depth = "a subagent cannot delegate or start a review (depth limit reached). Do this task yourself with your other tools.";
  expect(await answers(namedAgentRow(agent))).toEqual(["read_file ran", refusal, "the agent explorer may not use fold", "ask ran", depth, depth]);
  expect(rowOf({ kind: "delegate", agent })).toMatchObject({ access: "read-only", keepsArchive: true });
  expect(rowOf({ kind: "delegate" })).toBe(CHILD_KIND_ROWS.delegate);
  expect(childLabel({ kind: "delegate", mode: "full", agentName: "explorer" })).toBe("explorer, full");
});

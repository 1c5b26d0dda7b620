// What a child's tool calls are given, derived from the agent that started it: the parent's policy
// with the access its kind's row gives, the parent's session port handed on as it is (never copied, so
// the session's directory is still asked for only when a tool needs it), its own name and view of the
// edit log, and reports of its own calls on the event stream.
import { expect, it } from "vitest";
import { z } from "zod";
import { createChildren } from "../../../src/agent/children/children.js";
import type { AgentEvent, ChildKind } from "../../../src/agent/events.js";
import type { AgentToolContext } from "../../../src/agent/loop/loop.js";
import { detachedScope } from "../../../src/tools/detached-context.js";
import type { Tool } from "../../../src/tools/types.js";
import type { Message } from "../../../src/wire/messages.js";
import { fakeModel, toolCall } from "../../helpers/fake-model.js";
import { bareRun } from "../../helpers/agent-setup.js";

const MESSAGES: Message[] = [
  { role: "system", content: "You are hel." },
  { role: "user", content: "look around" },
];

/** Runs one child of `kind` whose one tool call keeps its context and tells a line of output. */
async function childCall(kind: ChildKind) {
  const seen: AgentToolContext[] = [];
  const look: Tool = {
    name: "look",
    description: "Look.",
    schema: z.object({}),
    spill: false,
    run: async (_args, ctx) => {
      seen.push(ctx as AgentToolContext);
      ctx.report.onOutput("looking\n", 0);
      return "looked";
    },
  };
  const client = fakeModel([{ message: { role: "assistant", content: null, tool_calls: [toolCall("call_1", "look", {})] } }, { message: { role: "assistant", content: "done" } }]);
  const { run } = bareRun({ ref: { agent: "parent" }, client, tools: [look], maxSteps: 5 });
  const scope = detachedScope("/nonexistent", "edit", "x");
  let dirReads = 0;
  const session = {
    ...scope.session,
    get dir() {
      dirReads++;
      return "/nonexistent/.hel/sessions/x";
    },
  };
  const parent = { ...run, toolContext: { ...scope, policy: { ...scope.policy, secrets: ["sk-child-context"] }, session } };
  const events: AgentEvent[] = [];
  const children = createChildren({ emit: (event) => events.push(event), budget: { maxSteps: 5, maxTokens: null } });
  const child = children.start({ kind, mode: kind === "delegate" ? "task-only" : null, task: "look", messages: [...MESSAGES] }, parent);
  const outcome = await child.turn(new AbortController().signal);
  expect(outcome.answer).toBe("done");
  expect(seen).toHaveLength(1);
  return { ctx: seen[0]!, parent: parent.toolContext, events, dirReads: () => dirReads };
}

it("a reviewer's calls run read-only under the parent's policy and session, named as the child", async () => {
  const { ctx, parent, events, dirReads } = await childCall("review");
  expect(ctx.policy).toEqual({ ...parent.policy, access: "read-only" });
  expect(parent.policy.access).toBe("edit");
  expect(ctx.session).toBe(parent.session);
  expect(dirReads()).toBe(0);
  expect(ctx.caller.label).toBe("subagent 1 (review)");
  expect(ctx.caller.editLog).not.toBe(parent.caller.editLog);
  expect(ctx.caller.editLog.agent).toBe("subagent 1");
  expect(ctx.agent.ref).toEqual({ agent: "child", delegation: 1 });
  expect(events.filter((e) => e.type === "tool_output")).toEqual([{ agent: "child", delegation: 1, type: "tool_output", callId: "call_1", name: "look", text: "looking\n", skippedBytes: 0 }]);
});

it("a delegate keeps the parent's access", async () => {
  const { ctx, parent } = await childCall("delegate");
  expect(ctx.policy).toEqual(parent.policy);
  expect(ctx.caller.label).toBe("subagent 1 (task-only)");
});

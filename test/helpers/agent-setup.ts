// A bare AgentSetup for the loop's own tests: the given client and tools, a tool context that points
// nowhere, and every event the turn emits kept in order.
import type { AgentEvent, AgentRef } from "../../src/agent/events.js";
import type { AgentSetup } from "../../src/agent/loop/loop.js";
import { StampCounter } from "../../src/agent/stamps.js";
import type { ModelClient } from "../../src/model/client.js";
import { detachedScope } from "../../src/tools/detached-context.js";
import { toolDefinitions } from "../../src/tools/registry.js";
import type { Tool } from "../../src/tools/types.js";
import type { Effort } from "../../src/wire/messages.js";

export function bareRun(options: { ref: AgentRef; client: ModelClient; tools: Tool[]; maxSteps: number; maxTokens?: number; effort?: Effort }): { run: AgentSetup; events: AgentEvent[] } {
  const events: AgentEvent[] = [];
  const run: AgentSetup = {
    ref: options.ref,
    client: options.client,
    tools: options.tools,
    toolDefinitions: toolDefinitions(options.tools),
    toolContext: detachedScope("/nonexistent", "edit", "x"),
    request: { model: "deepseek-flash", maxTokens: options.maxTokens ?? 1000, effort: options.effort ?? "none" },
    maxSteps: options.maxSteps,
    emit: (event) => events.push(event),
    stamps: new StampCounter(),
  };
  return { run, events };
}

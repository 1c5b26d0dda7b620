// The tools a child runs with: the parent's own list, in the same order and with the same definitions
// (so the child's requests share the parent's cached prefix), where the tools a child may not use
// answer every call with a refusal that says what to do instead. A child never starts a child for
// a task of its own, nor works on background jobs, which it could not end with its run (the
// catalogue's traits); what else it refuses its kind's row says (kinds.ts).
import { z } from "../../zod.js";
import { ToolError, type Tool } from "../../tools/types.js";
import { traitsOf } from "../toolbox.js";
import type { ChildKindRow } from "./kinds.js";

const NO_CHILDREN = "a subagent cannot delegate or start a review (depth limit reached). Do this task yourself with your other tools.";

const NO_JOBS = "a subagent has no background jobs: run commands in the foreground, with a timeout_s.";

function refused(tool: Tool, message: string): Tool {
  return {
    ...tool,
    // Whatever the arguments, the answer is the refusal.
    schema: z.unknown(),
    spill: false,
    run: async () => {
      throw new ToolError(message);
    },
  };
}

export function childTools(tools: readonly Tool[], row: ChildKindRow): Tool[] {
  return tools.map((tool) => {
    if (traitsOf(tool.name)?.startsChild === "task") return refused(tool, NO_CHILDREN);
    if (traitsOf(tool.name)?.jobs) return refused(tool, NO_JOBS);
    const refusal = row.refuses(tool);
    return refusal === null ? tool : refused(tool, refusal);
  });
}

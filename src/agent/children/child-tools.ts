// The tools a child runs with: the parent's own list, in the same order and with the same definitions
// (so the child's requests share the parent's cached prefix), where the tools a child may not use
// answer every call with a refusal that says what to do instead. What a tool may not be used for is
// read from its traits in the catalogue: a child never starts a child for a task of its own; the one
// answering a question about the archive neither folds nor asks; a reviewer never edits.
import { z } from "../../zod.js";
import { ToolError, type Tool } from "../../tools/types.js";
import type { ChildKind } from "../events.js";
import { traitsOf } from "../toolbox.js";

const NO_CHILDREN = "a subagent cannot delegate or start a review (depth limit reached). Do this task yourself with your other tools.";
const NO_ARCHIVE = "you are answering a question about the archive: answer from what you see, with your other tools.";
const NO_EDITS = "you are the reviewer: you may read files but never edit them. Report the change that is needed as a finding in your JSON answer instead.";

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

export function childTools(tools: readonly Tool[], kind: ChildKind): Tool[] {
  return tools.map((tool) => {
    const traits = traitsOf(tool.name);
    if (traits?.startsChild === "task") return refused(tool, NO_CHILDREN);
    if (kind === "ask" && (traits?.startsChild === "question" || traits?.folds)) return refused(tool, NO_ARCHIVE);
    if (kind === "review" && traits?.editsFiles) return refused(tool, NO_EDITS);
    return tool;
  });
}

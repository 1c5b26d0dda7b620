// The tools a child runs with: the parent's own list, in the same order and with the same definitions
// (so the child's requests share the parent's cached prefix), where the tools a child may not use
// answer every call with a refusal that says what to do instead. A child never starts another child;
// a reviewer never edits.
import { z } from "../../zod.js";
import { ToolError, type Tool } from "../../tools/types.js";
import type { ChildKind } from "../events.js";

export const DELEGATE_TOOL_NAME = "delegate_task";
export const REVIEW_TOOL_NAME = "review_changes";
/** Questions about the archive are the parent's: a child asked one answers from what it sees. */
const ASK_TOOL = "ask";
const FOLD_TOOL = "fold";
/** The tools that change files. */
const EDIT_TOOLS: ReadonlySet<string> = new Set(["search_replace"]);

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
    if (tool.name === DELEGATE_TOOL_NAME || tool.name === REVIEW_TOOL_NAME) return refused(tool, NO_CHILDREN);
    if (kind === "ask" && (tool.name === ASK_TOOL || tool.name === FOLD_TOOL)) return refused(tool, NO_ARCHIVE);
    if (kind === "review" && EDIT_TOOLS.has(tool.name)) return refused(tool, NO_EDITS);
    return tool;
  });
}

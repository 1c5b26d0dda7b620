// todo: the tool that replaces the todo list (todo-list.ts) whole. Its event carries the list to every
// reader (the terminal's live region, ACP's `plan` update, --json-events), and the session keeps the
// parent's for a resume. A child's list is its own: its event is tagged with its delegation, and
// nothing shows or keeps it as the session's. It changes nothing in the project, so plan mode lets it run.
import { z } from "../zod.js";
import type { Tool, ToolContext } from "../tools/types.js";
import type { AgentRef, EventSink } from "./events.js";
import { todoTally, TodoListSchema } from "./todo-list.js";

export const TODO_TOOL_NAME = "todo";

const TodoArgsSchema = z.strictObject({ items: TodoListSchema });
type TodoArgs = z.infer<typeof TodoArgsSchema>;

/** What the call needs of the agent running it: where its events go, and whose they are. */
type TodoContext = ToolContext & { agent: { ref: AgentRef; emit: EventSink } };

export const todoTool: Tool<TodoArgs, TodoContext> = {
  name: TODO_TOOL_NAME,
  description: "Set the user's checklist; one item in_progress.",
  schema: TodoArgsSchema,
  spill: false,
  async run({ items }, ctx) {
    ctx.agent.emit({ ...ctx.agent.ref, type: "todo", items });
    return `todo list: ${todoTally(items)}`;
  },
};

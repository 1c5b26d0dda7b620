// The todo list's vocabulary: an item, a list, and how a list is tallied. The list is the steps of a long
// task as the model keeps them, for the user to watch; the events (events.ts), the snapshot, the
// terminal, ACP and --json-events all speak of it in these terms. The tool that replaces it is todo.ts.
import { z } from "../zod.js";

const TODO_STATUSES = ["pending", "in_progress", "done"] as const;

// The bounds are refinements, which the JSON schema the model is offered leaves out: every request
// carries the tool's definition, and the model learns them from a refused call.
const MAX_ITEMS = 50;
const TodoItemSchema = z.strictObject({ text: z.string().refine((text) => text.trim() !== "", "an item needs text"), status: z.enum(TODO_STATUSES) });
export type TodoItem = z.infer<typeof TodoItemSchema>;
/** A list the model may keep: long enough for any task, short enough for a view of a few lines. */
export const TodoListSchema = z.array(TodoItemSchema).refine((items) => items.length <= MAX_ITEMS, `at most ${MAX_ITEMS} items: merge the small steps`);

/** "2 done, 1 in progress, 3 pending": what the model is told, and the head of the terminal's view. */
export function todoTally(items: readonly TodoItem[]): string {
  if (items.length === 0) return "empty";
  const n = (status: TodoItem["status"]) => items.filter((item) => item.status === status).length;
  return [`${n("done")} done`, `${n("in_progress")} in progress`, `${n("pending")} pending`].join(", ");
}

// The tools that let the model manage its own context: fold (run by the loop itself, which owns the
// view; see loop.ts) and recall, which reads the session's archive. They live beside the agent
// because they read what the agent keeps, not the project.
import { z } from "../../zod.js";
import { ToolError, type Tool } from "../../tools/types.js";
import type { ArchiveIndex } from "./archive-index.js";
import { FOLD_DESCRIPTION, FOLD_TOOL_NAME, FoldArgsSchema, type FoldArgs } from "./fold.js";
import { recallMatches, recallPage, renderSpan, RECALL_TOOL_NAME } from "./recall.js";

/** fold as offered; the loop binds it to the conversation. Run unbound, it has no conversation to fold. */
export const foldTool: Tool<FoldArgs> = {
  name: FOLD_TOOL_NAME,
  description: FOLD_DESCRIPTION,
  schema: FoldArgsSchema,
  spill: false,
  run: async () => {
    throw new ToolError("fold is not available in this conversation: it has no archive. Carry on without folding.");
  },
};

const RecallArgsSchema = z.strictObject({
  handle: z.string(),
  query: z.string().min(1).optional().describe("Only lines containing it, any case."),
  cursor: z.string().optional(),
});
type RecallArgs = z.infer<typeof RecallArgsSchema>;

export function createRecallTool(archive: ArchiveIndex): Tool<RecallArgs> {
  return {
    name: RECALL_TOOL_NAME,
    description: "Read back exactly, by line, an archived span named by a fold note or a [folded …] or [compacted …] message: for a detail the note lacks. A page may end with a cursor to go on.",
    schema: RecallArgsSchema,
    // A page is bounded already.
    spill: false,
    async run({ handle, query, cursor }) {
      const read = await archive.read(handle);
      if (!read.ok) throw new ToolError(`cannot recall ${handle}: ${read.error}. The note in the conversation is all that is left of it.`);
      const lines = renderSpan(read.file.messages);
      const head = `archive ${handle} (${read.file.kind}${read.file.first_stamp ? `, #${read.file.first_stamp}–#${read.file.last_stamp}` : ""}), ${lines.length} lines`;
      if (query !== undefined) {
        const found = recallMatches(lines, query);
        if (found.hits === 0) return `${head}: no line contains ${JSON.stringify(query)}. Read it page by page with recall ${JSON.stringify({ handle })}.`;
        return `${head}; ${found.hits} matching line${found.hits === 1 ? "" : "s"} for ${JSON.stringify(query)}:\n${found.text}`;
      }
      const from = cursor === undefined ? 0 : cursorLine(cursor, handle, lines.length);
      const page = recallPage(lines, from);
      const more = page.next === null ? "" : `\n(more: recall ${JSON.stringify({ handle, cursor: `${handle}@${page.next}` })})`;
      return `${head}:\n${page.text}${more}`;
    },
  };
}

function cursorLine(cursor: string, handle: string, count: number): number {
  const match = /^([a-z0-9]+)@(\d+)$/.exec(cursor);
  if (!match || match[1] !== handle || Number(match[2]) >= count) {
    throw new ToolError(`cursor ${JSON.stringify(cursor)} does not continue ${handle}. Start again with recall ${JSON.stringify({ handle })}.`);
  }
  return Number(match[2]);
}

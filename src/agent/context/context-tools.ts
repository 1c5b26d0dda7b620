// The tools that let the model manage its own context: fold (run by the loop itself, which owns the
// view; see loop.ts) and recall, which reads the session's archive. They live beside the agent
// because they read what the agent keeps, not the project.
import { z } from "../../zod.js";
import { ToolError, type Tool } from "../../tools/types.js";
import type { ArchiveIndex } from "./archive-index.js";
import { FOLD_DESCRIPTION, FOLD_TOOL_NAME, FoldArgsSchema, type FoldArgs } from "./fold.js";
import { namedHandles, recallMatches, recallPage, renderSpan, RECALL_TOOL_NAME } from "./recall.js";
import type { ArchiveFile } from "../archive.js";

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
  query: z.string().min(1).optional(),
  cursor: z.string().optional(),
});
type RecallArgs = z.infer<typeof RecallArgsSchema>;

export function createRecallTool(archive: ArchiveIndex): Tool<RecallArgs> {
  return {
    name: RECALL_TOOL_NAME,
    description: "Read an archived span by line; query keeps lines with it.",
    schema: RecallArgsSchema,
    // A page is bounded already.
    spill: false,
    async run({ handle, query, cursor }) {
      const read = await archive.read(handle);
      if (!read.ok) throw new ToolError(`cannot recall ${handle}: ${read.error}. The note in the conversation is all that is left of it.`);
      const lines = renderSpan(read.file.messages);
      const head = `archive ${handle} (${read.file.kind}${read.file.first_stamp ? `, #${read.file.first_stamp}–#${read.file.last_stamp}` : ""}), ${lines.length} lines`;
      if (query !== undefined) return searchChain(archive, handle, read.file.messages, head, query);
      const from = cursor === undefined ? 0 : cursorLine(cursor, handle, lines.length);
      const page = recallPage(lines, from);
      const more = page.next === null ? "" : `\n(more: recall ${JSON.stringify({ handle, cursor: `${handle}@${page.next}` })})`;
      return `${head}:\n${page.text}${more}`;
    },
  };
}

const lineCount = (n: number): string => `${n} matching line${n === 1 ? "" : "s"}`;

/**
 * recall with a query: the span itself, then the spans it names (the compactions and folds whose notes
 * it holds), and theirs in turn; each match said with the handle it came from.
 */
async function searchChain(archive: ArchiveIndex, handle: string, messages: ArchiveFile["messages"], head: string, query: string): Promise<string> {
  const own = recallMatches(renderSpan(messages), query);
  const seen = new Set([handle]);
  const queue = namedHandles(messages).map((h) => ({ handle: h, by: handle }));
  const found: { handle: string; by: string; text: string; hits: number }[] = [];
  for (let next = queue.shift(); next; next = queue.shift()) {
    if (seen.has(next.handle)) continue;
    seen.add(next.handle);
    const read = await archive.read(next.handle);
    if (!read.ok) continue;
    const match = recallMatches(renderSpan(read.file.messages), query);
    if (match.hits > 0) found.push({ ...next, ...match });
    queue.push(...namedHandles(read.file.messages).map((h) => ({ handle: h, by: next.handle })));
  }
  const q = JSON.stringify(query);
  if (found.length === 0) {
    if (own.hits > 0) return `${head}; ${lineCount(own.hits)} for ${q}:\n${own.text}`;
    const also = seen.size > 1 ? ` nor in the spans it leads to (${[...seen].slice(1).join(", ")})` : "";
    return `${head}: no line contains ${q}${also}. Read it page by page with recall ${JSON.stringify({ handle })}.`;
  }
  const sections = [...(own.hits > 0 ? [`in ${handle}:\n${own.text}`] : []), ...found.map((f) => `in ${f.handle} (named by ${f.by}; recall ${JSON.stringify({ handle: f.handle })} reads it):\n${f.text}`)];
  const total = own.hits + found.reduce((n, f) => n + f.hits, 0);
  return `${head}; ${lineCount(total)} for ${q}, ${own.hits > 0 ? "" : `none in ${handle} itself, `}found in ${[...(own.hits > 0 ? [handle] : []), ...found.map((f) => f.handle)].join(", ")}:\n${sections.join("\n")}`;
}

function cursorLine(cursor: string, handle: string, count: number): number {
  const match = /^([a-z0-9]+)@(\d+)$/.exec(cursor);
  if (!match || match[1] !== handle || Number(match[2]) >= count) {
    throw new ToolError(`cursor ${JSON.stringify(cursor)} does not continue ${handle}. Start again with recall ${JSON.stringify({ handle })}.`);
  }
  return Number(match[2]);
}

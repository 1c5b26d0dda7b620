// ask: a child agent that answers one question about an archived span, seeing the conversation as it
// was when the span was live (the view before the fold: the same system message, tool list and bytes,
// so the prompt cache serves it) plus the question with the subagent's role note. For a compaction,
// or a fold whose note is gone from the view, it sees the system message and as much of the span as
// fits, newest last. Recorded as a child of kind `ask`.
import { z } from "../../zod.js";
import { ToolError, type Tool } from "../../tools/types.js";
import type { Message } from "../../wire/messages.js";
import { messageJson } from "../../wire/serialize.js";
import { toolCallsOf } from "../../wire/stored-message.js";
import type { ArchiveIndex } from "../context/archive-index.js";
import type { ArchiveFile } from "../archive.js";
import { childTask } from "./child-messages.js";
import type { Children } from "./children.js";
import type { AgentToolContext } from "../loop/loop.js";
import { FOLD_TOOL_NAME } from "../context/fold.js";
import { estimateTokens } from "../meter.js";
import { unstamped } from "../stamps.js";

const AskArgs = z.strictObject({
  handle: z.string(),
  question: z.string().min(1),
});
type AskArgs = z.infer<typeof AskArgs>;

/** The messages the asked child starts from, before the question. */
export function askContext(view: readonly Message[], file: ArchiveFile, budgetTokens: number): Message[] {
  if (file.kind === "fold") {
    // The fold call's message stands where the span was; the view before it, plus the span, is the
    // request the parent sent just before it folded.
    const at = view.findIndex((m, i) => m.role === "tool" && unstamped(m.content).includes(`handle: ${file.handle} `) && callName(view, i) === FOLD_TOOL_NAME);
    if (at > 0) return [...view.slice(0, at - 1), ...file.messages];
  }
  let tokens = estimateTokens(messageJson(view[0]!));
  let from = file.messages.length;
  for (let i = file.messages.length - 1; i >= 0; i--) {
    tokens += estimateTokens(messageJson(file.messages[i]!));
    if (tokens > budgetTokens) break;
    // Only where a request may start: never at a result whose call would be left out.
    if (file.messages[i]!.role !== "tool") from = i;
  }
  return [view[0]!, ...file.messages.slice(from)];
}

function callName(view: readonly Message[], at: number): string | undefined {
  const id = (view[at] as { tool_call_id: string }).tool_call_id;
  for (let i = at - 1; i >= 0; i--) {
    const calls = toolCallsOf(view[i]!);
    if (calls) return calls.find((c) => c.id === id)?.function.name;
  }
  return undefined;
}

export interface AskDeps {
  archive: ArchiveIndex;
  /** The parent's live view. */
  parentMessages: () => readonly Message[];
  /** Starts the child that answers: numbered, recorded and budgeted like every other child. */
  children: Children;
  /** How many input tokens an archived span may fill when the view before it is gone. */
  budgetTokens: number;
}

export function createAskTool(deps: AskDeps): Tool<AskArgs, AgentToolContext> {
  return {
    name: "ask",
    description: "Ask a subagent that sees an archived span about it.",
    schema: AskArgs,
    spill: true,
    async run({ handle, question }, ctx) {
      const read = await deps.archive.read(handle);
      if (!read.ok) throw new ToolError(`cannot ask about ${handle}: ${read.error}. The note in the conversation is all that is left of it.`);
      const messages = [...askContext(deps.parentMessages(), read.file, deps.budgetTokens), { role: "user" as const, content: ctx.agent.stamps.stamp(childTask(question)) }];
      const child = deps.children.start({ kind: "ask", mode: null, task: question, messages }, ctx.agent);
      const outcome = await child.turn(ctx.signal);
      await child.end(outcome.answer, outcome.exitReason);
      if (outcome.exitReason !== "completed") throw new ToolError(`the question about ${handle} was not answered (${outcome.exitReason}: ${outcome.error ?? outcome.exitReason}). Read the span with recall instead.`);
      return outcome.answer ?? "";
    },
  };
}

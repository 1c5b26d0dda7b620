// review_changes: starts a reviewer child that sees the system message (the parent's, so its first
// request shares the cached prefix with the same tool list) and one user message: the reviewer's role
// note, the user's instructions verbatim and the diff of the project since the session began. It may
// read files, never edit them. Its answer must be the review JSON: checked, and asked for once more when
// it is not; the parent gets the review, or an error result it can act on. No changes: no child.
import { z } from "../../zod.js";
import { redactSecrets } from "../../redact.js";
import { ToolError, type Tool } from "../../tools/types.js";
import type { Message } from "../../wire/messages.js";
import { budgetStopLine } from "./child-budget.js";
import type { Children } from "./children.js";
import type { AgentToolContext, TurnOutcome } from "../loop/loop.js";
import { parseReview, retryMessage, REVIEW_DESCRIPTION, reviewMessage } from "./review.js";
import { unstamped } from "../stamps.js";
import type { ProjectChanges } from "../../changes/unified-diff.js";

const ReviewArgs = z.object({
  focus: z.string().optional().describe("Optional: what the reviewer should look at hardest, e.g. a risk you are unsure about."),
});
type ReviewArgs = z.infer<typeof ReviewArgs>;

export interface ReviewDeps {
  /** The parent's live conversation: its system message and the user's instructions. */
  parentMessages: () => readonly Message[];
  children: Children;
  /** The project's changes since the session began. */
  changes: () => Promise<ProjectChanges>;
}

/** The diff's share of the reviewer's message; beyond it, changed files are only named. */
const MAX_DIFF_CHARS = 120_000;

export const NO_CHANGES = "There is nothing to review: no file of the project has changed since this session began. No reviewer was started.";

export function createReviewTool(deps: ReviewDeps): Tool<ReviewArgs, AgentToolContext> {
  return {
    name: "review_changes",
    description: REVIEW_DESCRIPTION,
    schema: ReviewArgs,
    spill: true,
    async run({ focus }, ctx) {
      const changes = await deps.changes();
      if (changes.files.length === 0) return NO_CHANGES;
      // The diff library is loaded only when there is a diff to make.
      const { unifiedDiff } = await import("../../changes/unified-diff.js");
      const parent = deps.parentMessages();
      const content = reviewMessage({
        // The user's words as they gave them: the stamp is hel's, not theirs.
        instructions: parent.flatMap((m) => (m.role === "user" ? [unstamped(m.content)] : [])),
        diff: await unifiedDiff(changes.files, MAX_DIFF_CHARS, ctx.signal),
        focus,
        note: changes.note,
      });
      // A project file in the diff may hold the API key.
      const messages: Message[] = [...parent.slice(0, 1), { role: "user", content: redactSecrets(content, ctx.policy.secrets) }];
      const child = deps.children.start({ kind: "review", mode: null, task: focus ?? "the changes since the session began", messages }, ctx.agent);

      let outcome = await child.turn(ctx.signal);
      let verdict = verdictOf(outcome);
      if (verdict && "problem" in verdict) {
        // One more request: an answer, not more reading.
        outcome = await child.turn(ctx.signal, { instruction: retryMessage(verdict.problem), steps: 1 });
        verdict = verdictOf(outcome) ?? (outcome.exitReason === "max_steps" ? { problem: "asked again, it called tools instead of answering" } : null);
      }
      await child.end(outcome.answer, outcome.exitReason);
      if (verdict && "review" in verdict) return JSON.stringify(verdict.review);

      const stop = child.budgetStop();
      if (stop) {
        const progress = child.lastText();
        throw new ToolError(
          `${budgetStopLine("the reviewer", stop)} with no review.${progress ? ` Its last text: ${JSON.stringify(progress.slice(0, 500))}.` : ""} Call review_changes again with a narrower focus, or review the diff yourself.`,
        );
      }
      if (verdict) {
        const answer = (outcome.answer ?? "").trim();
        throw new ToolError(
          `the reviewer's answer was not the review JSON, even when asked again (${verdict.problem}).${answer ? ` It began: ${JSON.stringify(answer.slice(0, 300))}.` : ""} Call review_changes again, or review the changes yourself.`,
        );
      }
      throw new ToolError(`the reviewer did not finish (${outcome.exitReason}: ${outcome.error ?? outcome.exitReason}). Call review_changes again, or review the changes yourself.`);
    },
  };
}

/** The review in a finished answer, or what is wrong with the answer; null when there is no answer. */
function verdictOf(outcome: TurnOutcome): ReturnType<typeof parseReview> | null {
  return outcome.exitReason === "completed" ? parseReview(outcome.answer ?? "") : null;
}

// What a reviewer child sees and what it must answer, decided by pure functions: its one user message
// (a role note, the user's requirement verbatim, the diff since the session began), the JSON its answer
// must be (ReviewSchema), and the message that asks once more when it is not. The reviewer gets none of
// the parent's conversation: a reviewer given the author's reasoning tends to repeat it.
import { z } from "../../zod.js";
import { oneLine } from "../../errors.js";

const FindingSchema = z.object({
  title: z.string().min(1),
  body: z.string(),
  /** Null for a finding about no one place (something missing, say). */
  path: z.string().nullable().default(null),
  line: z.number().int().nonnegative().nullable().default(null),
  priority: z.number().int().min(0).max(3),
});

const ReviewSchema = z.object({
  verdict: z.enum(["correct", "incorrect"]),
  findings: z.array(FindingSchema),
});
export type Review = z.infer<typeof ReviewSchema>;

const ANSWER_SHAPE = '{"verdict": "correct" | "incorrect", "findings": [{"title": "…", "body": "…", "path": "src/x.ts", "line": 12, "priority": 0}]}';

export const REVIEW_ROLE_NOTE = [
  "You are a reviewer, a subagent of the agent that made the changes below. You are not shown that agent's conversation or reasoning, on purpose: judge the changes only against the user's requirement and the code itself.",
  "Check that the changes do everything the requirement asks, and do it correctly: look for bugs, missed cases, things the requirement asked for that are missing, and behaviour the changes break elsewhere. Read any file you need with your tools; you cannot edit files and cannot delegate.",
  `Your final answer is only a JSON object, with no text before or after it and no code fence: ${ANSWER_SHAPE}`,
  'verdict is "correct" when the changes meet the requirement and no finding has priority 0 or 1, otherwise "incorrect". Each finding has a one-line title; a body saying what is wrong, why, and what would fix it; the path and line it concerns (null when it concerns no one place); and a priority from 0 (must fix: wrong or broken) to 3 (a nit). No findings: an empty list.',
].join("\n");

export interface ReviewRequest {
  /** Every user instruction of the session, verbatim, in order. */
  instructions: readonly string[];
  /** The unified diff of the project since the session began. */
  diff: string;
  /** What the parent asked the review to look at hardest. */
  focus?: string | undefined;
  /** A limit of the diff the reviewer should know about (say, git could not be run). */
  note?: string | undefined;
}

export function reviewMessage(request: ReviewRequest): string {
  const instructions = request.instructions.map((text, i) => `[instruction ${i + 1}]\n${text}`).join("\n\n");
  return [
    REVIEW_ROLE_NOTE,
    `The user's requirement: every instruction the user gave in this session, verbatim, in order.\n\n${instructions}`,
    ...(request.focus ? [`Look hardest at: ${request.focus}`] : []),
    `The changes: a unified diff of the project since the session began.${request.note ? ` (${request.note})` : ""}\n\n${request.diff}`,
  ].join("\n\n");
}

/** The review, or what is wrong with the answer. A code fence around the whole object is forgiven. */
export function parseReview(answer: string): { review: Review } | { problem: string } {
  const text = answer.trim().replace(/^```(?:json)?[ \t]*\n([\s\S]*?)\n?```$/, "$1");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `it is not JSON (${oneLine(error instanceof Error ? error.message : String(error))})` };
  }
  const parsed = ReviewSchema.safeParse(value);
  if (parsed.success) return { review: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { problem: `${issue.path.length > 0 ? issue.path.join(".") : "the answer"}: ${issue.message}` };
}

export function retryMessage(problem: string): string {
  return `Your answer is not the JSON object asked for: ${problem}. Answer again with only that JSON object, with no text before or after it and no code fence: ${ANSWER_SHAPE}`;
}

export const REVIEW_DESCRIPTION = [
  "Have a reviewer subagent check the changes made in this session.",
  "It sees only the user's instructions of this session (verbatim) and a unified diff of the project since the session began, none of this conversation; it may read files but not edit them.",
  'The result is its JSON: {"verdict": "correct" | "incorrect", "findings": [{"title", "body", "path", "line", "priority": 0 (must fix) to 3 (nit)}]}.',
  "Call it when you believe the work is done, then fix what it finds.",
].join(" ");

// The question the interactive prompt asks when the model ends a turn in plan mode with its plan:
// go (plan mode off, the plan carried out in the same session at its own access), edit (plan mode
// off, the go instruction put on the prompt for the user to change or add to before sending), or keep
// planning (plan mode stays on; the user's next words go to the planner). One key each.
import type { Style } from "./kit/style.js";

export type PlanAnswer = "go" | "edit" | "keep";

/** The keys that answer it, and what each means. */
export const PLAN_KEYS: Readonly<Record<string, PlanAnswer>> = { y: "go", e: "edit", n: "keep" };

/** What plan mode is called before the prompt while it is on. */
export const PLAN_PROMPT_MODE = "plan";

export function planQuestion(style: Style): { lines: string[]; keys: string } {
  return { lines: ["", style.bold("Carry out this plan?")], keys: "[y] go · [e] edit · [n] keep planning › " };
}

/** What the user is told when plan mode is switched. */
export function planModeLine(on: boolean): string {
  return on ? "plan mode on: the model looks and changes nothing, then ends with a plan (Shift+Tab or /plan turns it off)" : "plan mode off: the model may change files again";
}

// A child's budget: how many model requests and tokens one delegation may use, and the one line that
// tells the parent which budget ended a child. Pure.
import { groupDigits, plural } from "../../format.js";

export interface ChildBudget {
  /** Model requests per child (--child-max-steps). */
  maxSteps: number;
  /** Prompt plus completion tokens per child (--child-max-tokens); null: no limit. */
  maxTokens: number | null;
}

export const DEFAULT_CHILD_MAX_STEPS = 30;

/** The most steps a child may take: the budget's, or fewer when its named agent's file says so. */
export function stepCeiling(budget: ChildBudget, agentSteps: number | null | undefined): number {
  return Math.min(agentSteps ?? budget.maxSteps, budget.maxSteps);
}

export type BudgetStop =
  /** `call`: the delegate_task call asked for fewer steps than the budget; `agent`: its named agent's file did. */
  { budget: "steps"; limit: number; source: "flag" | "call" | "agent" } | { budget: "tokens"; limit: number; used: number };

const STEP_SOURCES = { call: "the max_steps of this call", agent: "the max-steps of its agent file", flag: "--child-max-steps" } as const;

export function budgetStopLine(who: string, stop: BudgetStop): string {
  const budget =
    stop.budget === "steps"
      ? `its step budget of ${plural(stop.limit, "model request")} (${STEP_SOURCES[stop.source]})`
      : `its token budget of ${groupDigits(stop.limit)} ${stop.limit === 1 ? "token" : "tokens"} (--child-max-tokens; it used ${groupDigits(stop.used)})`;
  return `[${who} was stopped by ${budget} before it finished]`;
}

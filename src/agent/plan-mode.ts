// Plan mode: the model looks, changes nothing, and ends with a plan the user says go to. The request
// is what it is outside plan mode (the same system prompt, the same tool list), so the prefix DeepSeek
// caches serves plan and go alike: what plan mode adds travels in the user's message (PLAN_NOTE), and
// what it forbids is refused by hel when the call comes (planRefusal), never left out of the list.
// Tools that only read run; commands run, under read-only access (the sandbox keeps them from writing);
// a delegated child runs in plan mode too, since it shares its parent's setup. Pure.
import type { ToolPolicy } from "../tools/types.js";
import { traitsOf } from "./toolbox.js";

/** Whether plan mode is on: read at each call, since the user may switch it between instructions. */
export interface PlanMode {
  on: boolean;
}

/** Appended to an instruction given in plan mode: the model's only word of it. */
export const PLAN_NOTE =
  "\n\n[plan mode: change nothing yet. Read and search as you need (commands run read-only; edits are refused), then end your answer with a numbered plan of the changes. The user says go to carry it out.]";

/** What the user's go sends, plan mode off: the plan is in the conversation already. */
export const GO_INSTRUCTION = "Go: carry out the plan.";

/** The refusal a call answers with in plan mode, or null for a call that changes nothing and may run. */
export function planRefusal(name: string): string | null {
  const traits = traitsOf(name);
  if (traits?.readsOnly || traits?.runsCommands || traits?.startsChild === "task") return null;
  const what = traits?.editsFiles ? "it changes files" : "it may change things outside what hel can keep read-only";
  return `plan mode: ${name} was not run, since ${what} and plan mode changes nothing. Keep to reading (read_file, grep, find_files, read-only commands), then end your answer with the plan; once the user says go, make the change.`;
}

/** The policy a call runs under in plan mode: a command may read, never write. */
export function planPolicy(policy: ToolPolicy): ToolPolicy {
  return policy.access === "read-only" ? policy : { ...policy, access: "read-only" };
}

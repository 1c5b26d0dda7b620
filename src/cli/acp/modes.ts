// A session's modes as ACP offers them (session/new, session/load, session/set_mode): the default,
// in which the model works as the session's access lets it, and `plan`, hel's plan mode
// (agent/plan-mode.ts): it looks, changes nothing, and ends with a plan. Switching keeps the same
// conversation; the editor says when to go by setting the default mode again.
import type { SessionModeState } from "@agentclientprotocol/sdk";
import type { PlanMode } from "../../agent/plan-mode.js";

const PLAN_MODE_ID = "plan";
const DEFAULT_MODE_ID = "default";

export function modeState(plan: PlanMode): SessionModeState {
  return {
    currentModeId: plan.on ? PLAN_MODE_ID : DEFAULT_MODE_ID,
    availableModes: [
      { id: DEFAULT_MODE_ID, name: "Default", description: "Read, edit and run commands as the session's access allows" },
      { id: PLAN_MODE_ID, name: "Plan", description: "Look and change nothing (commands run read-only), then end with a plan" },
    ],
  };
}

/** Sets the mode an editor chose; false for a mode hel does not have. */
export function setMode(plan: PlanMode, modeId: string): boolean {
  if (modeId !== PLAN_MODE_ID && modeId !== DEFAULT_MODE_ID) return false;
  plan.on = modeId === PLAN_MODE_ID;
  return true;
}

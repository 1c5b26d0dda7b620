// The simulator's policies by name. Each reads the conversation and decides the next turn, so they keep
// working when a client retries, resumes or reorders requests; none looks at the request index. One file
// per policy in policies/; every one is wrapped to answer hel's compaction and auto-fold requests
// (policies/answering.ts). The helpers tests and drivers read the conversation with are exported here too.
import type { Policy, PolicyName } from "./types.js";
import { answeringCompaction } from "./policies/answering.js";
import { buildLoop } from "./policies/build-loop.js";
import { demo } from "./policies/demo.js";
import { echo } from "./policies/echo.js";
import { episode } from "./policies/episode.js";
import { fold } from "./policies/fold.js";
import { h11 } from "./policies/h11.js";
import { h9 } from "./policies/h9.js";

export { actions, lastUserText, type Action } from "./policies/conversation.js";
export { iniPort } from "./policies/h11.js";
export { buildLoop, demo, echo, episode, fold, h11, h9 };

export const POLICIES: Record<PolicyName, Policy> = { echo, demo, h11, h9, episode, fold, "build-loop": buildLoop };

export function resolvePolicy(p: Policy | PolicyName | undefined): Policy {
  if (p === undefined) return answeringCompaction(echo);
  if (typeof p === "function") return answeringCompaction(p);
  const found = POLICIES[p];
  if (!found) throw new Error(`unknown policy ${JSON.stringify(p)}; expected one of ${Object.keys(POLICIES).join(", ")}`);
  return answeringCompaction(found);
}

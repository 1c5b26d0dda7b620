// The build loop (sim/build-loop.ts) as the auto-fold tests run it: a project that fails its build three
// times, then passes; the simulator's build-loop policy with tool call ids that depend only on the
// conversation, so two runs send the same bytes; and how to tell the requests of a fold apart.
import { writeBuildLoopProject } from "../../sim/build-loop.js";
import type { Simulator } from "../../sim/index.js";
import { buildLoop } from "../../sim/policies.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { tempProject } from "./temp-project.js";
import { steadyIds } from "./simulators.js";

export const steady = steadyIds(buildLoop);

export async function buildLoopProject(): Promise<string> {
  const dir = await tempProject();
  await writeBuildLoopProject(dir);
  return dir;
}

export const ARGS = ["--effort", "none"];
export const bodies = (s: Simulator) => s.requests.map((r) => r.body as ChatRequest);
export const isNoteRequest = (b: ChatRequest) => /^Fold:/.test(String(b.messages.at(-1)!.content));
/** The request whose answer is the fourth build, the one that passes. */
export const passingBuild = (req: ChatRequest): boolean => {
  const edits = req.messages.filter((m) => m.role === "assistant" && m.tool_calls?.some((c) => c.function.name === "search_replace"));
  return edits.length === 3 && req.messages.at(-1)!.role === "tool" && String(req.messages.at(-1)!.content).includes("Edited build.cfg");
};

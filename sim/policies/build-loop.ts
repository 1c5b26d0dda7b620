// build-loop: runs the build of sim/build-loop.ts until it passes, then ordinary steps.
import { unstamped } from "../../src/agent/stamps.js";
import { BUILD_COMMAND } from "../build-loop.js";
import type { Policy } from "../types.js";
import { actions, commandCall, editCall, isAutoFoldNote, lastUserIndex, lastUserText, offered, readCall } from "./conversation.js";

/**
 * The build loop of sim/build-loop.ts: an instruction that mentions the build runs it, raises build.cfg's
 * level after each failure and runs it again until it passes; any other instruction reads notes.txt and
 * answers. Nothing here folds: whatever leaves the view is hel's doing.
 */
export const buildLoop: Policy = (req) => {
  const instruction = lastUserText(req);
  const acts = actions(req);
  if (!/\bbuild\b/i.test(instruction)) {
    if (acts.length === 0 && offered(req, "read_file")) return { tool_calls: [readCall(req, "notes.txt")] };
    return { content: `done: ${instruction}` };
  }
  if (req.messages.slice(lastUserIndex(req.messages)).some(isAutoFoldNote)) return { content: "The build passes now." };
  const last = acts.at(-1);
  const builds = acts.filter((a) => a.name === "run_command");
  if (!last) return { tool_calls: [commandCall(req, BUILD_COMMAND)] };
  if (last.name === "run_command") {
    if (/^exit code 0 /.test(unstamped(last.result))) return { content: "The build passes now." };
    // The log names the level, so the next fix is known even when earlier runs were compacted away.
    const level = Number(/failed at level (\d+) of 3/.exec(last.result)?.[1] ?? NaN);
    if (builds.length > 5 || Number.isNaN(level)) return { content: "I could not make the build pass." };
    return { reasoning: "Raise the level, as the log says.", tool_calls: [editCall(req, "build.cfg", `level=${level}`, `level=${level + 1}`)] };
  }
  return { tool_calls: [commandCall(req, BUILD_COMMAND)] };
};

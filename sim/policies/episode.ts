// episode: an episode to fold. Reads each file the instruction names, one call at a time, then (when fold
// is offered) folds since the first read's result with a note, then answers.
import type { Policy } from "../types.js";
import { actions, call, lastUserIndex, lastUserText, offered, readCall } from "./conversation.js";

const STAMP_AT_START = /^\[#(\d+)\] /;

export const episode: Policy = (req) => {
  const instruction = lastUserText(req);
  const files = instruction.match(/[\w./-]+\.(?:log|txt|md|js|ts|json|ini|yaml)\b/g) ?? [];
  const acts = actions(req);
  // Once folded, the reads are gone from the view: the episode is over.
  if (acts.some((a) => a.name === "fold" && !/Error:/.test(a.result.slice(0, 40)))) return { content: `done: ${instruction}` };
  const reads = acts.filter((a) => a.name === "read_file");
  const next = files[reads.length];
  if (next !== undefined && offered(req, "read_file")) return { reasoning: `Read ${next}.`, tool_calls: [readCall(req, next)] };
  if (reads.length > 0 && offered(req, "fold")) {
    // The first read's result is the first message of the episode that carries a stamp.
    const after = req.messages.slice(lastUserIndex(req.messages) + 1).find((m) => m.role === "tool");
    const since = after ? STAMP_AT_START.exec(after.content)?.[1] : undefined;
    if (since) {
      return {
        reasoning: "That episode is finished; fold it.",
        tool_calls: [
          call("fold", {
            since: `#${since}`,
            note: {
              changed: "nothing",
              learned: `read ${files.join(", ")}; the build passes once the cache is cleared, and only with NODE_ENV unset`,
              decided: "keep the lockfile; rejected upgrading the compiler",
              open: "nothing",
            },
          }),
        ],
      };
    }
  }
  return { content: `done: ${instruction}` };
};

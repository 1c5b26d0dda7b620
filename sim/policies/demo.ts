// demo: fixes the "Helo" typo in fixtures/demo's src/greet.js: read → search_replace → read → answer.
import type { Policy } from "../types.js";
import { actions, editCall, lastUserText, offered, readCall } from "./conversation.js";

export const demo: Policy = (req) => {
  const instruction = lastUserText(req);
  const path = /[\w./-]+\.(?:js|mjs|ts)\b/.exec(instruction)?.[0] ?? "src/greet.js";
  if (!/typo|fix|helo/i.test(instruction)) return { content: `I can fix the typo in the greeting; ask me: "Fix the typo in the greeting in ${path}".` };
  if (!offered(req, "read_file")) return { content: `I need the read_file tool to look at ${path}.` };

  const acts = actions(req);
  const edits = acts.filter((a) => a.name === "search_replace");
  const last = acts.at(-1);
  if (!last)
    return {
      reasoning: `The user wants the greeting typo in ${path} fixed. I should read the file first.`,
      content: "Let me look at the file first.",
      tool_calls: [readCall(req, path)],
    };
  if (last.name === "read_file") {
    if (last.result.includes("Helo")) {
      if (edits.length >= 2) return { content: `I could not fix the typo in ${path}: the edit failed twice (${edits.at(-1)!.result.slice(0, 200)}).` };
      if (!offered(req, "search_replace")) return { content: `The greeting in ${path} says "Helo" instead of "Hello", but I have no tool to edit files.` };
      return {
        reasoning: `The greeting says "Helo"; it should be "Hello". Replace that one word.`,
        tool_calls: [editCall(req, path, "Helo", "Hello")],
      };
    }
    if (last.result.includes("Hello")) {
      if (edits.length > 0)
        return {
          reasoning: "The file now reads Hello. Done.",
          content: `Fixed the typo in ${path}: the greeting now says "Hello" instead of "Helo".`,
        };
      return { content: `${path} has no typo in its greeting: it already says "Hello".` };
    }
    const failedReads = acts.filter((a) => a.name === "read_file" && !/Hel+o/.test(a.result)).length;
    if (failedReads >= 2) return { content: `I could not read ${path}: ${last.result.slice(0, 200)}` };
    return { reasoning: "The read failed; try once more.", tool_calls: [readCall(req, path)] };
  }
  // After an edit (successful or not), re-read: the file says whether it worked, and a failed edit is
  // then retried once from fresh content.
  return { reasoning: "Check the file after the edit.", tool_calls: [readCall(req, path)] };
};

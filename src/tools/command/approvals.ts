// One conversation's approvals: whether the model may ask to run a command outside the sandbox
// (--approval), the config's allow rules, the commands the user answered "always" for (kept in this
// process, for this session), and the front end's question, asked one at a time. Each decision is told
// to the caller, which records it with the command's result; nothing here runs a command.
import type { ApprovalMode, CommandApprovals } from "../types.js";
import type { AskApproval } from "./approval.js";
import { allowMatch } from "./allow-rules.js";

export function createApprovals(options: { mode: ApprovalMode; allow: readonly string[]; ask: AskApproval | null }): CommandApprovals {
  const always = new Set<string>();
  // One question at a time (subagents run side by side): the user answers each in turn, and a
  // question waiting behind an "always" for the same command is not asked.
  let previous: Promise<unknown> = Promise.resolve();
  const decide: CommandApprovals["decide"] = async (request, signal) => {
    if (always.has(request.command)) return "remembered";
    if (options.ask === null || signal.aborted) return "no";
    const answer = await options.ask(request, signal);
    if (answer === "always") always.add(request.command);
    return answer;
  };
  return {
    mode: options.mode,
    allowed: (command) => allowMatch(command, options.allow),
    decide(request, signal) {
      const decided = previous.then(() => decide(request, signal));
      previous = decided.catch(() => undefined);
      return decided;
    },
  };
}

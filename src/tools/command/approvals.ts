// One conversation's approvals: whether the model may ask for a command to be given what the sandbox
// denied it (--approval), the config's allow rules, what the sandbox denied each command line (for its
// escalation to grant), the grants the user answered "always" for (kept in this process, for this
// session), and the front end's question, asked one at a time. Each decision is told to the caller,
// which records it with the command's result; nothing here runs a command.
import type { ApprovalMode, CommandApprovals, SandboxGrant } from "../types.js";
import type { AskApproval } from "./ask-approval.js";
import { allowMatch } from "./allow-rules.js";
import { joinGrants } from "./sandbox-grant.js";

export function createApprovals(options: { mode: ApprovalMode; allow: readonly string[]; ask: AskApproval | null }): CommandApprovals {
  const always = new Map<string, SandboxGrant>();
  const denials = new Map<string, SandboxGrant>();
  // One question at a time (subagents run side by side): the user answers each in turn, and a
  // question waiting behind an "always" for the same command and grant is not asked.
  let previous: Promise<unknown> = Promise.resolve();
  const decide: CommandApprovals["decide"] = async (request, signal) => {
    if (covers(always.get(request.command), request.grant)) return "remembered";
    if (options.ask === null || signal.aborted) return "no";
    const answer = await options.ask(request, signal);
    if (answer === "always") always.set(request.command, joinGrants(always.get(request.command) ?? null, request.grant)!);
    return answer;
  };
  return {
    mode: options.mode,
    allowed: (command) => allowMatch(command, options.allow),
    denied: (command, grant) => void denials.set(command, joinGrants(denials.get(command) ?? null, grant)!),
    deniedFor: (command) => denials.get(command) ?? null,
    decide(request, signal) {
      const decided = previous.then(() => decide(request, signal));
      previous = decided.catch(() => undefined);
      return decided;
    },
  };
}

function covers(given: SandboxGrant | undefined, wanted: SandboxGrant): boolean {
  return given !== undefined && (given.network || !wanted.network) && wanted.writable.every((p) => given.writable.includes(p));
}

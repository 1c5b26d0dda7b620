// How a conversation's commands are let out, said at its opening: a warning when run_command is offered
// but no sandbox program is there to run it, and the approvals (tools/command/approvals.ts), whose
// escalation is the interactive prompt's default and elsewhere asked for (--approval, config). Only a
// front end that can ask the user (a terminal, an editor) hands in its question; without one the answer is no.
import { traitsOf } from "../agent/toolbox.js";
import { createApprovals } from "../tools/command/approvals.js";
import type { AskApproval } from "../tools/command/ask-approval.js";
import { findSandboxProgram, installAdvice } from "../tools/command/sandbox.js";
import type { CommandApprovals } from "../tools/types.js";
import type { Project } from "./project.js";

export function warnWithoutSandbox({ dir, options, warn }: Project): void {
  if (options.tools.some((name) => traitsOf(name)?.runsCommands) && options.access !== "full" && findSandboxProgram(dir) === null) {
    warn(`no sandbox program found, so run_command will refuse to run commands under --access ${options.access} — ${installAdvice()}`);
  }
}

export function commandApprovals({ options, warn }: Project, interactive: boolean, askApproval: AskApproval | undefined): CommandApprovals {
  if (options.origin.approval === "flag" && options.approval === "on-request" && !askApproval) warn("--approval on-request needs a terminal or an editor to ask you in — escalation is off in this run");
  const mode = askApproval ? (options.approval ?? (interactive ? "on-request" : "never")) : "never";
  return createApprovals({ mode, allow: options.allow, ask: askApproval ?? null });
}

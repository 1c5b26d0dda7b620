// The question a person answers before a command the sandbox stopped is given what it was denied
// (escalation: the network, writes to named places outside the project; never a run without the
// sandbox), and the one function each front end implements to ask it: the terminal with one key, an ACP client
// through session/request_permission. Nothing else decides; a front end that cannot ask answers "no".
import type { SandboxGrant } from "../types.js";

export interface ApprovalRequest {
  /** The command line as the model gave it. */
  command: string;
  /** The model's reason for the grant, shown beside the command. */
  justification: string;
  /** What it would be given. */
  grant: SandboxGrant;
  /** Which agent asks: null for the parent, else the child's label (its number and kind or agent name). */
  agent: string | null;
}

/** once: grant it this time; always: grant this same command as much unasked for the rest of the session; no: refuse. */
export type ApprovalAnswer = "once" | "always" | "no";

export type AskApproval = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

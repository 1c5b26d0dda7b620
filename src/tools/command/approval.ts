// The question a person answers before a command the sandbox stopped is run outside it (escalation),
// and the one function each front end implements to ask it: the terminal with one key, an ACP client
// through session/request_permission. Nothing else decides; a front end that cannot ask answers "no".
export interface ApprovalRequest {
  /** The command line as the model gave it. */
  command: string;
  /** The model's reason for running it outside the sandbox, shown beside the command. */
  justification: string;
  /** Which agent asks: null for the parent, else the child's label (its number and kind or agent name). */
  agent: string | null;
}

/** once: run it this time; always: run this same command unasked for the rest of the session; no: refuse. */
export type ApprovalAnswer = "once" | "always" | "no";

export type AskApproval = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

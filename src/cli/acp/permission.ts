// An approval (tools/command/ask-approval.ts) asked of an editor through session/request_permission: the
// command, what it would be given (it stays in the sandbox otherwise) and its justification, on the
// tool call that wants it, with the three answers a terminal
// offers. Anything but a chosen answer (the prompt cancelled, an option hel did not offer) is "no".
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { ApprovalAnswer, ApprovalRequest, AskApproval } from "../../tools/command/ask-approval.js";
import { describeGrant } from "../../tools/command/sandbox-grant.js";

const OPTIONS: readonly (PermissionOption & { optionId: ApprovalAnswer })[] = [
  { optionId: "once", name: "Give it this once", kind: "allow_once" },
  { optionId: "always", name: "Always give this command as much in this session", kind: "allow_always" },
  { optionId: "no", name: "No", kind: "reject_once" },
];

/** The one request of the protocol the question needs: session/request_permission, sent with the turn's signal. */
export type PermissionAsker = (request: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>;

/**
 * The approvals of one session asked through `ask`. The parent's question is put on its open run_command call (`callOf`); a question the editor does not
 * answer (an error, the turn cancelled) is "no".
 */
export function approvalsThrough(ask: PermissionAsker, sessionId: () => string, callOf: (command: string) => string | null): AskApproval {
  return async (request, signal) => {
    try {
      return approvalAnswer(await ask(permissionRequest(sessionId(), request, request.agent === null ? callOf(request.command) : null), signal));
    } catch {
      return "no";
    }
  };
}

/** `toolCallId`: the call that asks (null when it is not known, as for a child's). */
function permissionRequest(sessionId: string, request: ApprovalRequest, toolCallId: string | null): RequestPermissionRequest {
  const who = request.agent === null ? "" : `${request.agent} asks: `;
  return {
    sessionId,
    toolCall: {
      toolCallId: toolCallId ?? `approval-${request.command}`,
      title: `${who}give ${describeGrant(request.grant)} to: ${request.command}`,
      kind: "execute",
      status: "pending",
      content: [{ type: "content", content: { type: "text", text: request.justification } }],
      rawInput: { command: request.command, justification: request.justification, grant: request.grant },
    },
    options: [...OPTIONS],
  };
}

function approvalAnswer(response: RequestPermissionResponse): ApprovalAnswer {
  if (response.outcome.outcome !== "selected") return "no";
  const chosen = response.outcome.optionId;
  return OPTIONS.find((option) => option.optionId === chosen)?.optionId ?? "no";
}

// `hel "instruction"`: one instruction, run to its end under Ctrl-C and SIGTERM, in a conversation of
// its own. A list to pick the session from (`--resume` without an id) closes before it starts.
import type { Interactive } from "./prompt-session.js";
import type { Io, Project } from "../../conversation/project.js";
import { withConversation, type Ended } from "../terminal-conversation.js";
import { openPrompt, resumeTarget } from "./pick.js";
import { withSignals } from "./signals.js";
import { askOnRawTerminal } from "../term/approval-question.js";
import { styleFor } from "../term/kit/style.js";

export async function runOneShot(project: Project, instruction: string, io: Io): Promise<Ended> {
  const picker: { prompt?: Interactive } = {};
  const resume = await resumeTarget(project, async () => (picker.prompt = await openPrompt(project)));
  picker.prompt?.close();
  // In a terminal the user can be asked to let a command out of the sandbox (when --approval on-request).
  const askApproval = process.stdin.isTTY ? askOnRawTerminal(process.stdin, io.stderr, styleFor(io.stderr, io.env)) : undefined;
  return withConversation(project, { resume, interactive: false, ...(askApproval ? { askApproval } : {}) }, io, async ({ conversation }) => {
    const { outcome, stopped } = await withSignals((signal) => conversation.instruct(instruction, signal));
    return { worst: outcome.exitReason, interrupted: stopped === "SIGINT" };
  });
}

// `… | hel`: each non-empty line of stdin is an instruction, in one conversation, until the input
// ends, a turn does not complete, or a signal stops it. A line a UserPromptSubmit hook blocks is not
// sent (its line on stderr says so) and the next one is (design §15): the user's hook decided, so it
// neither ends the run nor makes its exit status a failure.
import type { Readable } from "node:stream";
import type { ExitReason } from "../../agent/events.js";
import type { Io, Project } from "../../conversation/project.js";
import { withConversation, type Ended } from "../terminal-conversation.js";
import { openPrompt, resumeTarget } from "./pick.js";
import { withSignals } from "./signals.js";

export async function runStdin(project: Project, io: Io, stdin: Readable): Promise<Ended> {
  const resume = await resumeTarget(project, () => openPrompt(project));
  return withConversation(project, { resume, interactive: false }, io, async ({ conversation }) => {
    // Loaded only here: only this mode reads lines with readline.
    const { stdinInstructions } = await import("../stdin-lines.js");
    let worst: ExitReason = "completed";
    let interrupted = false;
    for await (const line of stdinInstructions(stdin)) {
      const { outcome, stopped } = await withSignals((signal) => conversation.instruct(line, signal));
      if (outcome.blocked && !stopped) continue;
      if (outcome.exitReason !== "completed" || stopped) {
        worst = stopped ? "aborted" : outcome.exitReason;
        interrupted = stopped === "SIGINT";
        break;
      }
    }
    // Stopping before EOF leaves the pipe open, which would keep the process alive.
    stdin.destroy();
    return { worst, interrupted };
  });
}

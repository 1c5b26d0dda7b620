// The interactive prompt's driver, when stdin is a terminal. The prompt is opened once and outlives
// the conversations it drives: /new and /resume end one, and the next opens here on the same prompt
// (the project, its config, rules, skills and command files read again), until the user leaves.
import type { Interactive } from "./prompt-session.js";
import type { AskApproval } from "../../tools/command/ask-approval.js";
import type { Io } from "../../conversation/project.js";
import { withConversation, type Ended } from "../terminal-conversation.js";
import type { RunOptions } from "../options.js";
import { openProject } from "../open-project.js";
import { slashCommandsOf } from "../command-files.js";
import { openPrompt, resumeTarget } from "./pick.js";

export async function runInteractive(flags: RunOptions, apiKey: string, io: Io): Promise<Ended> {
  const kept: { prompt?: Interactive } = {};
  try {
    for (let options = flags; ; ) {
      const project = await openProject(options, apiKey, io);
      const commandFiles = slashCommandsOf(project.commands);
      const prompt = async () => (kept.prompt ??= await openPrompt(project));
      const resume = await resumeTarget(project, prompt);
      const askApproval: AskApproval = async (request, signal) => (await prompt()).askApproval(request, signal);
      const { next, ...ended } = await withConversation(project, { resume, interactive: true, askApproval }, io, async ({ conversation, view }) => {
        const { session, controls } = conversation;
        const end = await (await prompt()).converse({
          instruct: conversation.instruct,
          memory: conversation.memory,
          warm: conversation.warm,
          stop: view.stop,
          note: view.note,
          controls,
          resumed: session.saved,
          commandFiles,
        });
        return { worst: "completed" as const, interrupted: false, next: end.exit ? null : { sessionId: end.sessionId, model: controls.model, effort: controls.effort } };
      });
      if (!next) return ended;
      // A new session goes on with the settings chosen so far; a resumed one has its own.
      const settings = next.sessionId === null ? { model: next.model, effort: next.effort } : {};
      options = { ...flags, ...settings, prompt: [], resume: next.sessionId, pickSession: false, continue: false };
    }
  } finally {
    kept.prompt?.close();
  }
}

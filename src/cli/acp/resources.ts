// What the user's and the project's own files (resources/) give an editor: each diagnostic as a notice
// where the editor says it shows them (the client capability session.notices), else as a line of the
// agent's message, worded as the terminal's warning; the command files as the session's available
// commands, and a prompt that names one (`/name args`) as that file's text, as the terminal sends it.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Diagnostic } from "../../diagnostics.js";
import { expandCommand, takesArguments, type CommandFile } from "../../resources/commands.js";

export function diagnosticUpdates(diagnostics: readonly Diagnostic[], notices: boolean): SessionUpdate[] {
  return diagnostics.map(({ problem }) =>
    notices ? { sessionUpdate: "notice", severity: "warning", title: `hel: ${problem}` } : { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `hel: ${problem}\n` } },
  );
}

/** The command files as the editor lists them; none when there are none. */
export function commandsUpdate(commands: readonly CommandFile[]): SessionUpdate[] {
  if (commands.length === 0) return [];
  const availableCommands = commands.map((c) => ({ name: c.name, description: c.description ?? `(${c.shown})`, ...(takesArguments(c) ? { input: { hint: "args" } } : {}) }));
  return [{ sessionUpdate: "available_commands_update", availableCommands }];
}

/** The instruction a prompt gives: a command file's text when it names one, else its own text. */
export function commandText(prompt: string, commands: readonly CommandFile[]): string {
  const match = /^\/([a-z][a-z0-9-]*)(?:\s+([^]*))?$/.exec(prompt.trim());
  const command = match && commands.find((c) => c.name === match[1]);
  return command ? expandCommand(command, match[2]?.trim() ?? "") : prompt;
}

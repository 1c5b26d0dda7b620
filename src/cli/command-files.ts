// The command files (resources/commands.ts) as slash commands of the interactive prompt: /help shows
// each one's description (or its file), and typing it sends its text.
import { expandCommand, takesArguments, type CommandFile } from "../resources/commands.js";
import type { SlashCommand } from "./slash-commands.js";
import { terminalSafe } from "./term/kit/style.js";

export function slashCommandsOf(files: readonly CommandFile[]): SlashCommand[] {
  return files.map((file) => ({
    name: file.name,
    ...(takesArguments(file) ? { args: "[args]" } : {}),
    // /help prints it: a file's control characters must not reach the terminal.
    summary: terminalSafe(file.description ?? `(${file.shown})`),
    run: (ctx, args) => {
      const text = expandCommand(file, args);
      if (text === "") return ctx.say([terminalSafe(`${file.shown} has no text to send`)]);
      ctx.send(text);
    },
  }));
}

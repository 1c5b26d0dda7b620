// Commands a project or its user writes: `.hel/commands/<name>.md`, and `commands/<name>.md` in the user's
// hel folder, each a slash command of the interactive prompt that sends the file's text (after any
// front matter, whose `description` /help shows) with `$ARGUMENTS` replaced by what follows the name.
// Like rules, they are the project's own words sent only when typed, so no trust is asked. A file is
// read as the tools would read it inside its folder (no symlink leading out, a bounded regular file).
// A file that cannot be used, or whose name is a built-in command's, is skipped with one warning; the
// project's file wins over the user's of the same name.
import { readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { z } from "../zod.js";
import { parseFrontMatter } from "../fs/front-matter.js";
import { readProjectText, whySkipped } from "../tools/project-text.js";
import { isBuiltInCommand, type SlashCommand } from "./slash-commands.js";
import { terminalSafe } from "./term/kit/style.js";

/** A command is a prompt typed often, not a document. */
const MAX_COMMAND_BYTES = 64 * 1024;
const COMMAND_NAME = /^[a-z][a-z0-9-]*$/;

const CommandHeadSchema = z.object({
  description: z.string("must be text").max(200, "must be at most 200 characters").optional(),
});

/** The commands of the project and of the user (`userDir`: hel's folder of the user's files), by name. */
export async function loadCommandFiles(projectDir: string, userDir: string, warn: (line: string) => void): Promise<SlashCommand[]> {
  const projectFolder = path.join(projectDir, ".hel", "commands");
  const userFolder = await realpath(path.join(userDir, "commands")).catch(() => null);
  const found = new Map<string, SlashCommand>();
  for (const folder of [projectFolder, ...(userFolder ? [userFolder] : [])]) {
    const project = folder === projectFolder;
    const files = await readdir(folder).catch(() => []);
    for (const file of files.filter((f) => f.endsWith(".md")).sort()) {
      const name = file.slice(0, -".md".length);
      const shown = project ? `.hel/commands/${file}` : path.join(folder, file);
      const skip = (problem: string) => warn(`the command file ${shown} ${problem}, so it is skipped — ${problem.startsWith("would") ? "rename it" : "fix it or remove it"}`);
      if (found.has(name)) continue;
      if (!COMMAND_NAME.test(name)) skip("has a name that is not lowercase letters, digits and hyphens, starting with a letter");
      else if (isBuiltInCommand(name)) skip(`would hide hel's own /${name}`);
      else {
        const command = await loadCommand(projectDir, folder, file, shown, skip);
        if (command) found.set(name, command);
      }
    }
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

async function loadCommand(projectDir: string, folder: string, file: string, shown: string, skip: (problem: string) => void): Promise<SlashCommand | null> {
  let text: string | null;
  try {
    // Only the folder itself is opened to the read, found by its own path.
    text = await readProjectText({ projectDir, skillDirs: [{ dir: folder, real: folder }] }, path.join(folder, file), MAX_COMMAND_BYTES);
  } catch (e) {
    skip(`cannot be used: ${whySkipped(shown, e)}`);
    return null;
  }
  if (text === null) return null;
  let parsed: ReturnType<typeof parseFrontMatter>;
  try {
    parsed = parseFrontMatter(text);
  } catch (e) {
    skip(`has unreadable front matter: ${(e as Error).message}`);
    return null;
  }
  const head = CommandHeadSchema.safeParse(parsed.data);
  if (!head.success) {
    const issue = head.error.issues[0]!;
    skip(`has a bad "${String(issue.path[0])}" in its front matter: it ${issue.message}`);
    return null;
  }
  const body = parsed.body.trim();
  return {
    name: file.slice(0, -".md".length),
    ...(body.includes("$ARGUMENTS") ? { args: "[args]" } : {}),
    // /help prints it: a file's control characters must not reach the terminal.
    summary: terminalSafe(head.data.description?.replace(/\s+/g, " ") ?? `(${shown})`),
    run: (ctx, args) => {
      const text = expandCommand(body, args);
      if (text === "") return ctx.say([terminalSafe(`${shown} has no text to send`)]);
      ctx.send(text);
    },
  };
}

/** The text a command sends: `$ARGUMENTS` replaced, or, where the text has none, the arguments after it. */
function expandCommand(body: string, args: string): string {
  if (body.includes("$ARGUMENTS")) return body.replaceAll("$ARGUMENTS", args).trim();
  return args ? `${body}\n\n${args}`.trim() : body;
}

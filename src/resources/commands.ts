// Commands a project or its user writes: `.hel/commands/<name>.md`, and `commands/<name>.md` in the user's
// hel folder, each a slash command that sends the file's text (after any front matter, whose
// `description` says what it is for) with `$ARGUMENTS` replaced by what follows the name. Like rules,
// they are the project's own words sent only when typed, so no trust is asked. A file is read as the
// tools would read it inside its folder (read-beneath.ts: no symlink leading out of the folder, a
// bounded regular file). A file that
// cannot be used, or whose name a front end keeps for its own command (`reserved`), is left out with one
// diagnostic; the project's file wins over the user's of the same name (precedence.ts). Most projects
// have none: the folders are looked at without a trip to the thread pool.
import { readdirSync } from "node:fs";
import path from "node:path";
import { z } from "../zod.js";
import type { Diagnostic } from "../diagnostics.js";
import { parseFrontMatter } from "../fs/front-matter.js";
import { quietStat } from "../fs/quiet-stat.js";
import { isInside } from "../tools/paths.js";
import { byPrecedence, type Scope } from "./precedence.js";
import { readWithin, realPathOrNull } from "./read-beneath.js";
import { IN_HEL, outOfProject, whyUnread } from "./why-unread.js";

/** A command is a prompt typed often, not a document. */
const MAX_COMMAND_BYTES = 64 * 1024;
const COMMAND_NAME = /^[a-z][a-z0-9-]*$/;

const CommandHeadSchema = z.object({
  description: z.string("must be text").max(200, "must be at most 200 characters").optional(),
});

export interface CommandFile {
  name: string;
  /** Its front matter's, on one line; absent when it gives none. */
  description?: string;
  /** The text it sends, before `$ARGUMENTS` is replaced. */
  body: string;
  /** The file as a person finds it: relative to the project for the project's, else absolute. */
  shown: string;
}

export interface CommandsSettings {
  projectDir: string;
  /** hel's folder of the user's files. */
  userDir: string;
  /** Whether a front end keeps this name for a command of its own. */
  reserved(name: string): boolean;
}

interface Listed {
  scope: Scope;
  name: string;
  folder: string;
  file: string;
  shown: string;
}

/** The commands of the project and of the user, by name. */
export function loadCommandFiles({ projectDir, userDir, reserved }: CommandsSettings): { commands: CommandFile[]; diagnostics: Diagnostic[] } {
  const projectFolder = path.join(projectDir, ".hel", "commands");
  const userFolder = realPathOrNull(path.join(userDir, "commands"));
  const listed: Listed[] = [];
  for (const folder of [projectFolder, ...(userFolder ? [userFolder] : [])]) {
    const scope = folder === projectFolder ? "project" : "user";
    for (const file of filesOf(folder)) {
      if (file.endsWith(".md")) listed.push({ scope, name: file.slice(0, -".md".length), folder, file, shown: scope === "project" ? `.hel/commands/${file}` : path.join(folder, file) });
    }
  }
  const commands: CommandFile[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const { scope, name, folder, file, shown } of byPrecedence(listed, (l) => l.name).values()) {
    const skip = (problem: string) => diagnostics.push({ file: shown, problem: `the command file ${shown} ${problem}, so it is skipped — ${problem.startsWith("would") ? "rename it" : "fix it or remove it"}` });
    if (!COMMAND_NAME.test(name)) skip("has a name that is not lowercase letters, digits and hyphens, starting with a letter");
    else if (reserved(name)) skip(`would hide hel's own /${name}`);
    else {
      const command = loadCommand(projectDir, scope, folder, file, shown, skip);
      if (command) commands.push(command);
    }
  }
  return { commands: commands.sort((a, b) => (a.name < b.name ? -1 : 1)), diagnostics };
}

/** The names in `folder`, sorted; none when it is missing or cannot be listed. */
function filesOf(folder: string): string[] {
  if (!quietStat(folder, true)?.isDirectory()) return [];
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}

function loadCommand(projectDir: string, scope: Scope, folder: string, file: string, shown: string, skip: (problem: string) => void): CommandFile | null {
  const given = path.join(folder, file);
  let text: string | null;
  try {
    // The project's is reached from the project's root; the user's from its folder's real path.
    text = scope === "project" ? readWithin(projectDir, path.relative(projectDir, given), MAX_COMMAND_BYTES, { within: folder }) : readWithin(folder, file, MAX_COMMAND_BYTES);
  } catch (e) {
    const out = scope === "project" ? (real: string) => (isInside(projectDir, real) ? IN_HEL : outOfProject(real)) : (real: string) => `leads out of the skill folder ${folder} through a symlink (to ${real})`;
    skip(`cannot be used: ${whyUnread(e, { given, shown, out })}`);
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
  const description = head.data.description?.replace(/\s+/g, " ");
  return { name: file.slice(0, -".md".length), ...(description !== undefined ? { description } : {}), body: parsed.body.trim(), shown };
}

/** Whether the command's text takes what follows its name in place of `$ARGUMENTS`. */
export const takesArguments = (command: CommandFile): boolean => command.body.includes("$ARGUMENTS");

/** The text a command sends: `$ARGUMENTS` replaced, or, where the text has none, the arguments after it. */
export function expandCommand(command: CommandFile, args: string): string {
  if (takesArguments(command)) return command.body.replaceAll("$ARGUMENTS", args).trim();
  return args ? `${command.body}\n\n${args}`.trim() : command.body;
}

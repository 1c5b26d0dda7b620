// The session a run continues: --resume's id, or for `hel --resume` without one, the user's pick from
// a numbered list in the terminal (null: a new session, when the user picks none; a project with no
// session to pick is refused, as -c refuses it). The prompt that shows the list is the
// interactive one, loaded only when a list is shown.
import { HelError } from "../../errors.js";
import { listSessions } from "../../session/catalog.js";
import type { Interactive } from "./prompt-session.js";
import type { Project } from "../../conversation/project.js";

export async function resumeTarget(project: Project, prompt: () => Promise<Interactive>): Promise<string | null> {
  const { options } = project;
  if (!options.pickSession) return options.resume;
  const sessions = await listSessions(project.sessionsDir ?? project.dir);
  // As -c with nothing to continue: the instruction was meant for a conversation with a past, and a
  // new session would run it without one. A list with nothing on it offers no choice to make.
  if (!sessions.some((s) => s.error === null)) throw new HelError("this project has no saved session to resume — run hel without --resume to start one", 2);
  if (!process.stdin.isTTY) throw new HelError("--resume needs a session id when stdin is not a terminal — `hel sessions ls` lists them", 2);
  const id = await (await prompt()).pick(sessions);
  if (id === null) process.stderr.write("starting a new session\n");
  return id;
}

/** The interactive prompt, loaded here only: a run without a terminal has no use for readline and the terminal UI. */
export async function openPrompt(project: Project): Promise<Interactive> {
  const { openInteractive } = await import("./prompt-session.js");
  return openInteractive(project.dir, project.secrets);
}

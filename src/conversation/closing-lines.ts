// A conversation's closing lines, on stderr once its front end has drawn its own: how to resume the
// session, when it was saved; after Ctrl-C, on the line that says what was kept and how to go on from it.
import type { ActiveSession } from "../session/session.js";
import type { Io } from "./project.js";
import { resumeHint } from "./resume-hint.js";

export async function closingLines(session: ActiveSession, projectDir: string, interrupted: boolean, io: Io): Promise<void> {
  const hint = session.saved ? await resumeHint(session.id, projectDir, io.cwd, io.env) : null;
  if (interrupted) {
    const kept =
      hint === null ? "nothing was saved" : session.lastSaveFailed ? `the interrupted turn could not be saved; session ${session.id} keeps the turns before it` : `the turn so far is saved in session ${session.id}`;
    io.stderr.write(`hel: interrupted — ${kept}${hint === null ? "" : `; resume with: ${hint}`}\n`);
  } else if (hint !== null) {
    const lost = session.lastSaveFailed ? " (without the last turn, which could not be saved)" : "";
    io.stderr.write(`session ${session.id} — resume with: ${hint}${lost}\n`);
  }
}

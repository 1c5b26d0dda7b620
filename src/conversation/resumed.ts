// What a continued session says at its opening: each file changed after its last saved turn (a kill
// before that turn's save, or edits by hand) is named, and the note returned tells the model with
// the next instruction; a last turn cut short is named too, and so are the background jobs that were
// running when its last hel ended (they ended with it; their output is in spill/). A new session says
// nothing.
import type { ActiveSession } from "../session/session.js";
import { jobsLeftRunning } from "../tools/command/jobs.js";

/** The note that opens the next instruction's message: "" when no file changed. */
export async function resumedNote(session: ActiveSession, warn: (line: string) => void): Promise<string> {
  let note = "";
  if (session.saved) {
    const gap = await session.checkpointing.gap(session.turns.at(-1)?.n ?? 0);
    for (const change of gap) warn(`${change.path} ${change.action === "remove" ? "is new" : "changed"} since the last saved turn of session ${session.id} (/rewind puts it back)`);
    if (gap.length > 0) note = `[hel: these files changed after the last saved turn, outside this conversation: ${gap.map((c) => c.path).join(", ")}]\n\n`;
  }
  if (session.saved) {
    const jobs = await jobsLeftRunning(session.dir);
    const listed = jobs.map((job) => `job ${job.job} (${job.command}, output in ${job.log})`).join("; ");
    if (jobs.length > 0) {
      warn(`background jobs running when session ${session.id} was saved ended with its hel: ${listed}`);
      note += `[hel: the background jobs of the last run ended with it: ${listed}. Start again what is still needed]\n\n`;
    }
  }
  const last = session.resumedLastTurn;
  if (last && last.exit_reason !== "completed") {
    warn(`session ${session.id}'s last turn was cut short (${last.error ?? last.exit_reason}); the next instruction continues from where it stopped`);
  }
  return note;
}

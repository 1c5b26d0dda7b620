// What a continued session says at its opening: each file changed after its last saved turn (a kill
// before that turn's save, or edits by hand) is named, and the note returned tells the model with
// the next instruction; a last turn cut short is named too. A new session says nothing.
import type { ActiveSession } from "../session/session.js";

/** The note that opens the next instruction's message: "" when no file changed. */
export async function resumedNote(session: ActiveSession, warn: (line: string) => void): Promise<string> {
  let note = "";
  if (session.saved) {
    const gap = await session.checkpointing.gap(session.turns.at(-1)?.n ?? 0);
    for (const change of gap) warn(`${change.path} ${change.action === "remove" ? "is new" : "changed"} since the last saved turn of session ${session.id} (/rewind puts it back)`);
    if (gap.length > 0) note = `[hel: these files changed after the last saved turn, outside this conversation: ${gap.map((c) => c.path).join(", ")}]\n\n`;
  }
  const last = session.resumedLastTurn;
  if (last && last.exit_reason !== "completed") {
    warn(`session ${session.id}'s last turn was cut short (${last.error ?? last.exit_reason}); the next instruction continues from where it stopped`);
  }
  return note;
}

// A conversation's closing lines, on stderr once its front end has drawn its own: how to resume the
// session, when it was saved; after Ctrl-C, on the line that says what was kept and how to go on from it.
// A front end that fits its lines to a terminal's rows hands in how: when the whole line does not fit,
// the words are fitted to the rows and the command gets a row of its own, never cut, so it is copied
// in one piece (flush left: a leading space keeps a command out of some shells' history). Without
// one (a pipe, an editor), the one line.
import type { ActiveSession } from "../session/session.js";
import type { Io } from "./project.js";
import { resumeHint } from "./resume-hint.js";

/** A line of words as the rows the front end shows it in. */
export type FitRows = (words: string) => string[];

export async function closingLines(session: Pick<ActiveSession, "id" | "saved" | "lastSaveFailed">, projectDir: string, interrupted: boolean, io: Io, toRows?: FitRows): Promise<void> {
  const hint = session.saved ? await resumeHint(session.id, projectDir, io.cwd, io.env) : null;
  let rows: string[];
  if (interrupted) {
    const kept =
      hint === null ? "nothing was saved" : session.lastSaveFailed ? `the interrupted turn could not be saved; session ${session.id} keeps the turns before it` : `the turn so far is saved in session ${session.id}`;
    rows = hint === null ? [`hel: interrupted — ${kept}`] : resumeRows(`hel: interrupted — ${kept}; resume with:`, hint, "", toRows);
  } else if (hint !== null) {
    const lost = session.lastSaveFailed ? "(without the last turn, which could not be saved)" : "";
    rows = resumeRows(`session ${session.id} — resume with:`, hint, lost, toRows);
  } else return;
  io.stderr.write(rows.map((row) => `${row}\n`).join(""));
}

/** `words command after` as one line where it fits; else `words` and `after` fitted, the command alone between them. */
function resumeRows(words: string, command: string, after: string, toRows: FitRows | undefined): string[] {
  const line = `${words} ${command}${after === "" ? "" : ` ${after}`}`;
  if (!toRows || toRows(line).length === 1) return [line];
  return [...toRows(words), command, ...(after === "" ? [] : toRows(after))];
}

// The numbered list of a project's sessions that /resume and `hel --resume` (without an id, in a
// terminal) show, and the reading of the number typed back. Pure: listing and asking are passed in.
import type { SessionSummary } from "../../session/catalog.js";
import { formatSessionList } from "./transcript.js";

/** Sessions offered at most, newest first. */
const SHOWN = 20;

export interface PickerDeps {
  sessions: readonly SessionSummary[];
  /** Writes lines for the user. */
  say(lines: string[]): void;
  /** Asks for one line; what the user typed. */
  ask(question: string): Promise<string>;
  width?: number;
}

/** The id of the session picked, or null when there is none or the user typed nothing. */
export async function pickSession(deps: PickerDeps): Promise<string | null> {
  const offered = deps.sessions.filter((s) => s.error === null).slice(0, SHOWN);
  if (offered.length === 0) {
    deps.say(["no saved session to resume in this project"]);
    return null;
  }
  const [head = "", ...rows] = formatSessionList(offered, { width: (deps.width ?? 100) - 5 })
    .trimEnd()
    .split("\n");
  const digits = String(offered.length).length;
  deps.say([`${" ".repeat(digits + 2)}${head}`, ...rows.map((row, i) => `${String(i + 1).padStart(digits)}. ${row}`)]);
  for (;;) {
    const answer = (await deps.ask(`session to resume (1-${offered.length}, Enter for none) › `)).trim();
    if (answer === "") return null;
    const n = Number(answer);
    if (Number.isInteger(n) && n >= 1 && n <= offered.length) return offered[n - 1]!.id;
    deps.say([`type a number from 1 to ${offered.length}, or press Enter to keep going without one`]);
  }
}

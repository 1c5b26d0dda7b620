// The interactive prompt's history of a project, kept in .hel/history so the arrow keys reach the
// instructions of earlier runs too: one JSON string per line, oldest first, appended as instructions
// are sent. Secret values are blanked before a line is written. History is a convenience: a file
// that cannot be read or written costs the history, never the run.
import { join } from "node:path";
import { z } from "../../../zod.js";
import { writeFileAtomic } from "../../../fs/atomic-write.js";
import { appendOwnFile } from "../../../fs/own-file.js";
import { readRegularFile } from "../../../fs/regular-file.js";
import { ensureHelDir, helDir } from "../../../fs/hel-dir.js";
import { redactSecrets } from "../../../redact.js";

const Entry = z.string();
/** Far more than twice the entries kept, pastes included. */
const MAX_HISTORY_BYTES = 64 * 1024 * 1024;

export interface PromptHistory {
  /** The entries, newest first, at most `limit`. */
  entries: string[];
  /** Appends an instruction to the file. */
  add(text: string): Promise<void>;
}

export async function loadPromptHistory(projectDir: string, secrets: readonly string[], limit: number): Promise<PromptHistory> {
  const file = join(helDir(projectDir), "history");
  // Never through a link, nor from a FIFO: a planted history is no history.
  const lines = (await readRegularFile(file, MAX_HISTORY_BYTES, false).catch(() => "")).split("\n").filter(Boolean);
  const entries = lines.flatMap((line) => {
    try {
      const parsed = Entry.safeParse(JSON.parse(line));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
  const kept = entries.slice(-limit);
  // The file is cut back to the entries in use once it holds twice as many.
  if (entries.length > 2 * limit) await writeFileAtomic(file, Buffer.from(kept.map((e) => JSON.stringify(e) + "\n").join(""))).catch(() => undefined);
  // One append at a time, in the order the instructions were sent: the first also makes .hel/, which
  // takes longer than a later append, and an instruction sent meanwhile must not go ahead of it.
  let appended = Promise.resolve();
  return {
    entries: kept.reverse(),
    add(text) {
      appended = appended.then(async () => {
        try {
          await ensureHelDir(projectDir);
          await appendOwnFile(file, JSON.stringify(redactSecrets(text, secrets)) + "\n", 0o600);
        } catch {
          // The history is lost for this instruction; the instruction itself is not.
        }
      });
      return appended;
    },
  };
}

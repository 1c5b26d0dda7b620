// The interactive prompt's history of a project, kept in .hel/history so the arrow keys reach the
// instructions of earlier runs too: one JSON string per line, oldest first, appended as instructions
// are sent. Secret values are blanked before a line is written. History is a convenience: a file
// that cannot be read or written costs the history, never the run.
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "../../zod.js";
import { writeFileAtomic } from "../../fs/atomic-write.js";
import { ensureHelDir, helDir } from "../../fs/hel-dir.js";
import { redactSecrets } from "../../redact.js";

const Entry = z.string();

export interface PromptHistory {
  /** The entries, newest first, at most `limit`. */
  entries: string[];
  /** Appends an instruction to the file. */
  add(text: string): Promise<void>;
}

export async function loadPromptHistory(projectDir: string, secrets: readonly string[], limit: number): Promise<PromptHistory> {
  const file = join(helDir(projectDir), "history");
  const lines = (await readFile(file, "utf8").catch(() => "")).split("\n").filter(Boolean);
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
  return {
    entries: kept.reverse(),
    async add(text) {
      try {
        await ensureHelDir(projectDir);
        await appendFile(file, JSON.stringify(redactSecrets(text, secrets)) + "\n", { mode: 0o600 });
      } catch {
        // The history is lost for this instruction; the instruction itself is not.
      }
    },
  };
}

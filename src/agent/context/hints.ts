// Hints: a read or edit of a file that an archived span touched ends with one line naming the span's
// handle and its note's first words, so the model knows where to look before it re-learns (or
// contradicts) what the note recorded. Once per file and handle per turn, so repeated reads stay short.
import { posix } from "node:path";
import type { ArchiveIndex } from "./archive-index.js";
import { noteHeadline } from "../archive.js";
import { traitsOf } from "../toolbox.js";

const normal = (path: string): string => posix.normalize(path.trim().replace(/\\/g, "/")).replace(/^\.\//, "").replace(/\/$/, "");

export interface Hints {
  /** The line to add to a call's result, or null. */
  hint(tool: string, args: unknown): string | null;
  /** A new turn: every hint may be given once again. */
  newTurn(): void;
}

export function createHints(archive: ArchiveIndex): Hints {
  const given = new Set<string>();
  return {
    hint(tool, args) {
      // Only the tools the catalogue marks hinted get one, for the file their path argument names.
      const traits = traitsOf(tool);
      const key = traits?.hintedPath ? traits.pathArgument : undefined;
      const value = key && typeof args === "object" && args !== null ? (args as Record<string, unknown>)[key] : undefined;
      if (typeof value !== "string" || value.trim() === "") return null;
      const file = normal(value);
      const lines: string[] = [];
      for (const entry of archive.entries) {
        if (!entry.files.some((f) => normal(f) === file) || given.has(`${entry.handle}\0${file}`)) continue;
        given.add(`${entry.handle}\0${file}`);
        lines.push(`(archived span ${entry.handle} also touched ${file}: "${noteHeadline(entry.note, 60)}" — recall ${JSON.stringify({ handle: entry.handle })} reads it)`);
      }
      return lines.length > 0 ? lines.join("\n") : null;
    },
    newTurn: () => given.clear(),
  };
}

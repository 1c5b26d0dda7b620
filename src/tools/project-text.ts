// A text file hel puts in front of the model because the project (or a listed skill folder) holds it —
// rules, a skill: read as the tools would reach it, so it follows their path rules (inside the
// project, no symlink leading out, nothing in .hel/ but the listed skill folders), and it must be a
// regular file (a FIFO would hang hel) of bounded size.
import { constants, type Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { FileRefused, readOpened } from "../fs/regular-file.js";
import { isMissing, PathError, withProjectEntry, type PathScope } from "./paths.js";

class TextRefused extends Error {}

/**
 * The text of a file the project (or a listed skill folder) holds, read as the tools would reach it, or
 * null when there is none; throws when it is there but may not be used (whySkipped says why).
 */
export function readProjectText(scope: PathScope, file: string, maxBytes: number): Promise<string | null> {
  return withProjectEntry(scope, file, "read", false, async ({ dir, name }) => {
    const st = await lstat(dir.entry(name)).catch((e: unknown) => {
      if (isMissing(e)) return null;
      throw e;
    });
    if (st === null) return null;
    // A symlink is opened as a file: the no-follow open refuses it as a change (it was not one when checked).
    if (!st.isFile() && !st.isSymbolicLink()) throw new TextRefused(`${file} is ${kindOf(st)}, not a regular file`);
    const fh = await dir.open(name, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      return await readOpened(fh, maxBytes);
    } catch (e) {
      throw e instanceof FileRefused ? new TextRefused(`${file} ${e.message}`) : e;
    } finally {
      await fh.close();
    }
  });
}

/** Why readProjectText refused `file`, in words for a person. */
export function whySkipped(file: string, e: unknown): string {
  if (e instanceof PathError) return e.problem;
  if (e instanceof TextRefused) return e.message;
  const code = (e as NodeJS.ErrnoException).code;
  return `${file} cannot be read (${code ?? String(e)})`;
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  return "a device";
}

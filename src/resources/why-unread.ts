// Why a rules or command file was not read (read-beneath.ts readWithin), in the words of the tools'
// path rules, which those files follow: a person who has seen a tool refuse a path sees the same
// sentence here.
import { PathChangedError } from "../fs/beneath.js";
import { FileRefused } from "../fs/regular-file.js";
import { LinkRefused } from "./read-beneath.js";

/** What a link into hel's own folder is. */
export const IN_HEL = "is in .hel/, hel's own state: it is off limits to tools";

/** What a link leading out of the project is, given its real target. */
export const outOfProject = (real: string): string => `leads outside the project directory through a symlink (to ${real})`;

export interface Unread {
  /** The path as the reader was given it, which the refusal of a link quotes. */
  given: string;
  /** The file as a person finds it. */
  shown: string;
  /** What a link that leads out of bounds is, given its real target. */
  out(real: string): string;
}

/** Why readWithin refused the file, in words for a person. */
export function whyUnread(e: unknown, { given, shown, out }: Unread): string {
  if (e instanceof LinkRefused) {
    if (e.kind === "out") return `${JSON.stringify(given)} ${out(e.at)}`;
    if (e.kind === "off-limits") return `${JSON.stringify(given)} ${IN_HEL}`;
    return `${JSON.stringify(given)} goes through a symlink whose target does not exist (${e.at})`;
  }
  if (e instanceof PathChangedError) return `${shown} changed while it was in use: it or a directory on its path was replaced`;
  if (e instanceof FileRefused) return `${given} ${e.message}`;
  return `${shown} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
}

// What a section of `npm run bench` is: a name `--only` chooses it by, and a run that measures and
// returns its rows. A run that throws is reported by the driver as a row-less section under `title`.
import type { StartupResult } from "../startup.js";
import type { Section } from "../stats.js";

export interface BenchContext {
  /** The names `--only` chose (all of them without it). */
  only: ReadonlySet<string>;
  /** Progress, to stderr: stdout carries only the table or the JSON. */
  log: (line: string) => void;
  /** The start-up measurement, left by the startup section for the version section, which shares its runs. */
  startup?: StartupResult;
}

export interface BenchSection {
  name: string;
  /** The title of the row-less section reported when the run throws. */
  title: string;
  /**
   * Sections that read this one's measurement from the context: it also runs when only they are chosen,
   * reported under the first of its name and theirs that was.
   */
  serves?: readonly string[];
  run(ctx: BenchContext): Promise<Section | Section[]>;
}

// A path's stats asked without an exception, for the lookups of a start, hundreds of which find nothing:
// undefined when the path is missing or cannot be reached (a loop of links, a folder that may not be
// searched), for the read that follows to say why.
import { lstatSync, statSync, type Stats } from "node:fs";

/** The stats of `path`, of the link itself unless `follow`; undefined when there are none to be had. */
export function quietStat(path: string, follow = false): Stats | undefined {
  try {
    return (follow ? statSync : lstatSync)(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

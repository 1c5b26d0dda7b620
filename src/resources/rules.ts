// The project's rules: from each folder from the project's root down to the folder hel was started in,
// HEL.md, else AGENTS.md, root first and the nearest last. A rules file goes into every request and the
// snapshot, so it follows the tools' path rules: inside the project (a symlink may lead elsewhere in it,
// never out of it, nor into .hel/), a regular file (a FIFO would hang hel), of bounded size, read as
// read-beneath.ts reads within a root; and the run's secrets are masked in it. Anything else is left out
// with one diagnostic, and the folder's next candidate is tried.
import type { ProjectRules } from "../agent/system-prompt.js";
import type { Diagnostic } from "../diagnostics.js";
import { formatSize } from "../format.js";
import { helDir } from "../fs/hel-dir.js";
import { redactSecrets } from "../redact.js";
import { readWithin, realPathOrNull, type Bounds } from "./read-beneath.js";
import { outOfProject, whyUnread } from "./why-unread.js";

const RULES_FILES = ["HEL.md", "AGENTS.md"];
/** More than this is not rules but a mistake (a log, a dump) that every request would carry. */
export const MAX_RULES_BYTES = 64 * 1024;

/** The rules of each folder from the root down to `here`, root first, with the run's `secrets` masked. */
export function loadProjectRules(projectDir: string, here: string, secrets: readonly string[]): { rules: ProjectRules[]; diagnostics: Diagnostic[] } {
  const own = helDir(projectDir);
  // Both forms: a .hel that were a link would be another way in.
  const bounds: Bounds = { offLimits: [own, realPathOrNull(own) ?? own] };
  const parts = here.split("/").filter(Boolean);
  const folders = parts.map((_, i) => `${parts.slice(0, i + 1).join("/")}/`);
  const rules: ProjectRules[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const folder of ["", ...folders]) {
    const found = folderRules(projectDir, folder, bounds, diagnostics);
    if (found) rules.push({ file: found.file, text: redactSecrets(found.text, secrets) });
  }
  return { rules, diagnostics };
}

/** The first rules file in `folder` ("" or ending in "/") that may be used. */
function folderRules(projectDir: string, folder: string, bounds: Bounds, diagnostics: Diagnostic[]): ProjectRules | null {
  for (const name of RULES_FILES) {
    const file = `${folder}${name}`;
    let text: string | null;
    try {
      text = readWithin(projectDir, file, MAX_RULES_BYTES, bounds);
    } catch (e) {
      const why = whyUnread(e, { given: file, shown: file, out: outOfProject });
      diagnostics.push({ file, problem: `${why}, so it is not used as the project's rules — keep them in a regular file inside the project, up to ${formatSize(MAX_RULES_BYTES)}` });
      continue;
    }
    if (text !== null) return { file, text };
  }
  return null;
}

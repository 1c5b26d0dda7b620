// The project's rules: from each folder from the project's root down to the folder hel was started in,
// HEL.md, else AGENTS.md, root first and the nearest last. A rules file goes into every request and the
// snapshot, so it follows the tools' path rules: inside the project (a symlink may lead elsewhere in it,
// never out of it, nor into .hel/), a regular file (a FIFO would hang hel), of bounded size; and the
// run's secrets are masked in it. Anything else is left out with one diagnostic, and the folder's next
// candidate is tried.
import type { ProjectRules } from "../agent/system-prompt.js";
import type { Diagnostic } from "../diagnostics.js";
import { formatSize } from "../format.js";
import { redactSecrets } from "../redact.js";
import { readProjectText, whySkipped } from "../tools/project-text.js";

const RULES_FILES = ["HEL.md", "AGENTS.md"];
/** More than this is not rules but a mistake (a log, a dump) that every request would carry. */
export const MAX_RULES_BYTES = 64 * 1024;

/** The rules of each folder from the root down to `here`, root first, with the run's `secrets` masked. */
export async function loadProjectRules(projectDir: string, here: string, secrets: readonly string[]): Promise<{ rules: ProjectRules[]; diagnostics: Diagnostic[] }> {
  const parts = here.split("/").filter(Boolean);
  const folders = parts.map((_, i) => `${parts.slice(0, i + 1).join("/")}/`);
  const rules: ProjectRules[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const folder of ["", ...folders]) {
    const found = await folderRules(projectDir, folder, diagnostics);
    if (found) rules.push({ file: found.file, text: redactSecrets(found.text, secrets) });
  }
  return { rules, diagnostics };
}

/** The first rules file in `folder` ("" or ending in "/") that may be used. */
async function folderRules(projectDir: string, folder: string, diagnostics: Diagnostic[]): Promise<ProjectRules | null> {
  for (const name of RULES_FILES) {
    const file = `${folder}${name}`;
    let text: string | null;
    try {
      text = await readProjectText({ projectDir }, file, MAX_RULES_BYTES);
    } catch (e) {
      diagnostics.push({ file, problem: `${whySkipped(file, e)}, so it is not used as the project's rules — keep them in a regular file inside the project, up to ${formatSize(MAX_RULES_BYTES)}` });
      continue;
    }
    if (text !== null) return { file, text };
  }
  return null;
}

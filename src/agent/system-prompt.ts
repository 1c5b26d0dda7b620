// The system prompt: who hel is, the environment, the skills it may read (skills.ts), and the project's
// own rules. Built once per process from values passed in; the date has day precision so that a session resumed the same day sends a
// byte-identical prefix and keeps its prompt cache.
// Rules come from each folder from the project's root down to the folder hel was started in (HEL.md,
// else AGENTS.md, in each), the nearest last so it has the last word. A rules file goes into every
// request, so it follows the tools' path rules: inside the project (no symlink leading out, nothing
// in .hel/), a regular file (a FIFO would hang hel), of bounded size. Anything else is skipped with
// one warning, and the folder's next candidate is tried.
import { formatSize } from "../format.js";
import { readProjectText, whySkipped } from "../tools/project-text.js";
import { skillsSection, type Skill } from "./skills.js";

export interface ProjectRules {
  file: string;
  text: string;
}

export interface PromptEnvironment {
  projectDir: string;
  /** The folder hel was started in, relative to the project directory ("" at its root). */
  here?: string;
  platform: string;
  date: string;
  /** Root first, nearest last. */
  rules: readonly ProjectRules[];
  /** Listed before the rules, which keep the last word. */
  skills?: readonly Pick<Skill, "name" | "description" | "path">[];
}

export function buildSystemPrompt(env: PromptEnvironment): string {
  const lines = [
    "You are hel, a coding agent working in the user's project from a terminal.",
    "Use the tools to look at files before you change them, and change only what the instruction asks for.",
    "Paths are relative to the project directory. When the work is done, answer briefly with what you did or found.",
    "",
    "# Environment",
    `Project directory: ${env.projectDir}`,
    ...(env.here ? [`Current folder: ${env.here} (where the user is working; paths stay relative to the project directory)`] : []),
    `Platform: ${env.platform}`,
    `Date: ${env.date}`,
    ...skillsSection(env.skills ?? []),
  ];
  for (const rules of env.rules) {
    lines.push("", `# Project rules (${rules.file})`, rules.text.trimEnd());
  }
  return lines.join("\n");
}

const RULES_FILES = ["HEL.md", "AGENTS.md"];
/** More than this is not rules but a mistake (a log, a dump) that every request would carry. */
export const MAX_RULES_BYTES = 64 * 1024;

/** The rules of each folder from the root down to `here`, root first; `warn` gets a line for each file skipped. */
export async function loadProjectRules(projectDir: string, here: string, warn: (line: string) => void): Promise<ProjectRules[]> {
  const parts = here.split("/").filter(Boolean);
  const folders = parts.map((_, i) => `${parts.slice(0, i + 1).join("/")}/`);
  const found: ProjectRules[] = [];
  for (const folder of ["", ...folders]) {
    const rules = await folderRules(projectDir, folder, warn);
    if (rules) found.push(rules);
  }
  return found;
}

/** The first rules file in `folder` ("" or ending in "/") that may be used. */
async function folderRules(projectDir: string, folder: string, warn: (line: string) => void): Promise<ProjectRules | null> {
  for (const name of RULES_FILES) {
    const file = `${folder}${name}`;
    let text: string | null;
    try {
      text = await readProjectText({ projectDir }, file, MAX_RULES_BYTES);
    } catch (e) {
      warn(`${whySkipped(file, e)}, so it is not used as the project's rules — keep them in a regular file inside the project, up to ${formatSize(MAX_RULES_BYTES)}`);
      continue;
    }
    if (text !== null) return { file, text };
  }
  return null;
}

export const isoDay = (now: Date): string => now.toISOString().slice(0, 10);

// The system prompt: who hel is, the environment, the skills it may read (skill-listing.ts), and the project's
// own rules (resources/rules.ts reads them), the nearest folder's last so they have the last word.
// Built once per process from values passed in; the date has day precision so that a session resumed
// the same day sends a byte-identical prefix and keeps its prompt cache.
import { skillsSection, type Skill } from "./skill-listing.js";

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
    "You are hel, a coding agent run from a terminal.",
    "Look at files before you change them, and change only what was asked.",
    "Paths are relative to the project directory. When done, say briefly what you did or found.",
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

export const isoDay = (now: Date): string => now.toISOString().slice(0, 10);

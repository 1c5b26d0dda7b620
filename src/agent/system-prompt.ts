// The system prompt: who hel is, the environment, and the project's own rules (HEL.md, else
// AGENTS.md). Built once per process from values passed in; the date has day precision so that a
// session resumed the same day sends a byte-identical prefix and keeps its prompt cache.
import { readFile } from "node:fs/promises";
import { join } from "node:path";

export interface ProjectRules {
  file: string;
  text: string;
}

export interface PromptEnvironment {
  projectDir: string;
  platform: string;
  date: string;
  rules: ProjectRules | null;
}

export function buildSystemPrompt(env: PromptEnvironment): string {
  const lines = [
    "You are hel, a coding agent working in the user's project from a terminal.",
    "Use the tools to look at files before you change them, and change only what the instruction asks for.",
    "Paths are relative to the project directory. When the work is done, answer briefly with what you did or found.",
    "",
    "# Environment",
    `Project directory: ${env.projectDir}`,
    `Platform: ${env.platform}`,
    `Date: ${env.date}`,
  ];
  if (env.rules) {
    lines.push("", `# Project rules (${env.rules.file})`, env.rules.text.trimEnd());
  }
  return lines.join("\n");
}

export async function loadProjectRules(projectDir: string): Promise<ProjectRules | null> {
  for (const file of ["HEL.md", "AGENTS.md"]) {
    try {
      return { file, text: await readFile(join(projectDir, file), "utf8") };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return null;
}

export const isoDay = (now: Date): string => now.toISOString().slice(0, 10);

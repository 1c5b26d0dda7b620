// The skills the system prompt lists (resources/skills.ts finds them): a skill's name, what it is for,
// and where its SKILL.md is, listed within a bound so that hundreds of skills do not crowd the prompt.
import type { SkillFolder } from "../tools/types.js";

export interface Skill {
  name: string;
  description: string;
  /** Its SKILL.md as the system prompt lists it: relative to the project for the project's, else absolute. */
  path: string;
  folder: SkillFolder;
}

/** The system prompt's listing of names, descriptions and paths; the skills past it are listed by name. */
export const MAX_SKILL_LISTING = 2000;

/** The system prompt's lines for the skills (none without skills): in name order, so the prompt stays byte-stable. */
export function skillsSection(skills: readonly Pick<Skill, "name" | "description" | "path">[]): string[] {
  if (skills.length === 0) return [];
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : 1));
  const lines = [
    "",
    "# Skills",
    "A skill is a folder of instructions for one kind of task. When a task fits a skill's description, read its SKILL.md with read_file at the path listed before you start, and follow it; read_file reads the other files in its folder too.",
  ];
  let used = 0;
  let listed = 0;
  for (const skill of sorted) {
    const line = `- ${skill.name}: ${skill.description} (${skill.path})`;
    if (used + line.length + 1 > MAX_SKILL_LISTING) break;
    used += line.length + 1;
    lines.push(line);
    listed++;
  }
  const rest = sorted.slice(listed);
  if (rest.length === 0) return lines;
  const byFolder = new Map<string, string[]>();
  for (const skill of rest) {
    // The folder above the skill's own, as path.posix.dirname twice would give it, without two strings per skill.
    const folder = skill.path.slice(0, skill.path.lastIndexOf("/", skill.path.lastIndexOf("/") - 1));
    const names = byFolder.get(folder);
    if (names) names.push(skill.name);
    else byFolder.set(folder, [skill.name]);
  }
  lines.push("More skills, by name only (the SKILL.md of each is in <folder>/<name>/):");
  for (const [folder, names] of byFolder) lines.push(`- ${folder}/: ${names.join(", ")}`);
  return lines;
}

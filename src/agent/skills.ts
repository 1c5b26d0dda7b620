// Skills, the SKILL.md convention several agents share: a folder `.hel/skills/<name>/` or
// `.agents/skills/<name>/` of the project, or `skills/<name>/` in the user's hel folder, whose SKILL.md
// opens with front matter naming the skill and saying when it applies. The system prompt lists them
// (skillsSection) and the model reads a skill with read_file when it needs it, so only the front
// matter is read here. A project's skill folder is reached without symlinks, as its rules are; the
// user's may lead anywhere (the user put it there), and is listed by the real path of the user's folder.
// A file that cannot be used is skipped with one warning naming it; a name taken already (the project's
// folders come first) is left out.
import { readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "../zod.js";
import { parseFrontMatter } from "../fs/front-matter.js";
import { readProjectText, whySkipped } from "../tools/project-text.js";
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
/** Skill files read at the same time while loading. */
const LOADING_AT_ONCE = 16;
/** A SKILL.md is instructions to read on demand; anything near this size is a mistake. */
const MAX_SKILL_BYTES = 256 * 1024;

const SkillHeadSchema = z.object({
  name: z
    .string("must be given, as text")
    .max(64, "must be at most 64 characters")
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be lowercase letters and digits, with single hyphens between"),
  description: z.string("must be given, as text").min(1, "must not be empty").max(1024, "must be at most 1,024 characters"),
});

/** The skills of the project and of the user (`userDir`: hel's folder of the user's files), sorted by name. */
export async function loadSkills(projectDir: string, userDir: string, warn: (line: string) => void): Promise<Skill[]> {
  const userSkills = await realpath(path.join(userDir, "skills")).catch(() => null);
  const sources = [
    { root: path.join(projectDir, ".hel", "skills"), project: true },
    { root: path.join(projectDir, ".agents", "skills"), project: true },
    ...(userSkills ? [{ root: userSkills, project: false }] : []),
  ];
  // A folder's name is its skill's: the first folder of a name is the one read.
  const candidates = new Map<string, { dir: string; project: boolean }>();
  for (const { root, project } of sources) {
    const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if ((entry.isDirectory() || entry.isSymbolicLink()) && !candidates.has(entry.name)) candidates.set(entry.name, { dir: path.join(root, entry.name), project });
    }
  }
  // A few at a time, each holding a few open files, so hundreds of skills do not hold up the start;
  // the warnings follow in the folders' order.
  const list = [...candidates.values()];
  const loaded: (Skill | string | null)[] = new Array(list.length).fill(null);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < list.length; i = next++) loaded[i] = await loadSkill(projectDir, list[i]!.dir, list[i]!.project);
  };
  await Promise.all(Array.from({ length: Math.min(LOADING_AT_ONCE, list.length) }, worker));
  for (const problem of loaded) if (typeof problem === "string") warn(problem);
  return loaded.filter((s): s is Skill => typeof s === "object" && s !== null).sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The skill in `dir`; null when it has no SKILL.md; a warning's line when it cannot be used. */
async function loadSkill(projectDir: string, dir: string, project: boolean): Promise<Skill | string | null> {
  const file = path.join(dir, "SKILL.md");
  const shown = project ? path.relative(projectDir, file).split(path.sep).join("/") : file;
  const skip = (problem: string) => `the skill ${shown} ${problem}, so it is skipped — fix it or remove the folder`;
  const real = await realpath(dir).catch(() => null);
  const isFolder = real !== null && (await stat(real).then((st) => st.isDirectory(), () => false));
  if (!isFolder) return skip("is in a folder that cannot be opened (a dangling symlink?)");
  if (project && real !== dir) return skip("is reached through a symlink; a project's skills are kept in its own folders");
  let text: string | null;
  try {
    text = await readProjectText({ projectDir, skillDirs: [{ dir, real }] }, shown, MAX_SKILL_BYTES);
  } catch (e) {
    return skip(`cannot be used: ${whySkipped(shown, e)}`);
  }
  if (text === null) return null;
  let data: Record<string, string | string[]>;
  try {
    data = parseFrontMatter(text).data;
  } catch (e) {
    return skip(`has unreadable front matter: ${(e as Error).message}`);
  }
  const head = SkillHeadSchema.safeParse(data);
  if (!head.success) {
    const issue = head.error.issues[0]!;
    return skip(`has a bad "${String(issue.path[0])}" in its front matter: it ${issue.message}`);
  }
  if (head.data.name !== path.basename(dir)) return skip(`is named "${head.data.name}" in its front matter, not "${path.basename(dir)}" as its folder is`);
  return { name: head.data.name, description: head.data.description.replace(/\s+/g, " ").trim(), path: shown, folder: { dir, real } };
}

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
    const folder = path.posix.dirname(path.posix.dirname(skill.path));
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), skill.name]);
  }
  lines.push("More skills, by name only (the SKILL.md of each is in <folder>/<name>/):");
  for (const [folder, names] of byFolder) lines.push(`- ${folder}/: ${names.join(", ")}`);
  return lines;
}

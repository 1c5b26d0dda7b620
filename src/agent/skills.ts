// Skills, the SKILL.md convention several agents share: a folder `.hel/skills/<name>/` or
// `.agents/skills/<name>/` of the project, or `skills/<name>/` in the user's hel folder, whose SKILL.md
// opens with front matter naming the skill and saying when it applies. The system prompt lists them
// (skillsSection) and the model reads a skill with read_file when it needs it, so only the front
// matter is read here. A project's skill folder and its SKILL.md are reached from the project without
// a symlink, so read_file finds what is listed; the user's folder may lead anywhere (the user put it
// there), is listed under the real path of the user's skills folder, and its SKILL.md is no symlink.
// A file that cannot be used is skipped with one warning naming it; a name taken already (the project's
// folders come first) is left out.
import { closeSync, constants, fstatSync, openSync, realpathSync } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { z } from "../zod.js";
import { formatSize } from "../format.js";
import { hasProcFd, openBeneath, PathChangedError, type OpenDir } from "../fs/beneath.js";
import { parseFrontMatter } from "../fs/front-matter.js";
import { FileRefused, readOpenedSync } from "../fs/regular-file.js";
import { isMissing } from "../tools/paths.js";
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
    { root: path.join(projectDir, ".hel", "skills"), walk: [".hel", "skills"] },
    { root: path.join(projectDir, ".agents", "skills"), walk: [".agents", "skills"] },
    ...(userSkills ? [{ root: userSkills, walk: null }] : []),
  ];
  // A folder's name is its skill's: the first folder of a name is the one read.
  const candidates = new Map<string, Candidate>();
  const opened: OpenDir[] = [];
  try {
    for (const { root, walk } of sources) {
      const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
      const folders = entries.filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !candidates.has(e.name));
      if (folders.length === 0) continue;
      // The project's folder is reached from the project without a symlink, once for all its skills.
      let dir: OpenDir | null = null;
      if (walk) {
        try {
          dir = await openBeneath(projectDir, walk);
          opened.push(dir);
        } catch (e) {
          warn(`the skills folder ${walk.join("/")} cannot be used (${e instanceof PathChangedError ? "it is reached through a symlink" : String((e as NodeJS.ErrnoException).code ?? e)}), so its skills are skipped — keep a project's skills in its own folders`);
          continue;
        }
      }
      for (const entry of folders.sort((x, y) => (x.name < y.name ? -1 : 1))) candidates.set(entry.name, { name: entry.name, dir: path.join(root, entry.name), projectRoot: dir, symlink: entry.isSymbolicLink() });
    }
    // Read synchronously: nothing else waits at the start, and hundreds of skills must not hold it up.
    const viaProc = await hasProcFd();
    const skills: Skill[] = [];
    for (const candidate of candidates.values()) {
      const loaded = loadSkill(projectDir, candidate, viaProc);
      if (typeof loaded === "string") warn(loaded);
      else if (loaded) skills.push(loaded);
    }
    return skills.sort((a, b) => (a.name < b.name ? -1 : 1));
  } finally {
    await Promise.all(opened.map((d) => d.close()));
  }
}

interface Candidate {
  name: string;
  /** The folder's absolute path. */
  dir: string;
  /** The project's skills folder, open, for a project's skill; null for the user's. */
  projectRoot: OpenDir | null;
  symlink: boolean;
}

/** The skill in a folder; null when it has no SKILL.md; a warning's line when it cannot be used. */
function loadSkill(projectDir: string, { name, dir, projectRoot, symlink }: Candidate, viaProc: boolean): Skill | string | null {
  const file = path.join(dir, "SKILL.md");
  const shown = projectRoot ? path.relative(projectDir, file).split(path.sep).join("/") : file;
  const skip = (problem: string) => `the skill ${shown} ${problem}, so it is skipped — fix it or remove the folder`;
  const throughLink = "is reached through a symlink; a project's skills are kept in its own folders";
  if (projectRoot && symlink) return skip(throughLink);
  let text: string | null;
  let real = dir;
  try {
    // The user's folder may be a symlink to wherever the user keeps it: read_file follows it there.
    if (!projectRoot) real = realpathSync.native(dir);
    text = readSkillFile(projectRoot ? projectRoot.entry(name) : real, viaProc);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // The folder became a symlink since it was listed.
    if (code === "ELOOP") return skip(throughLink);
    if (isMissing(e)) return null;
    return skip(e instanceof SkillRefused ? e.message : `cannot be read (${code ?? String(e)})`);
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
  if (head.data.name !== name) return skip(`is named "${head.data.name}" in its front matter, not "${name}" as its folder is`);
  return { name, description: head.data.description.replace(/\s+/g, " ").trim(), path: shown, folder: { dir, real } };
}

class SkillRefused extends Error {}

/**
 * The SKILL.md of the folder at `folderPath` (a project's is addressed from its open skills folder): the
 * folder opened without following a symlink (ELOOP), and the file too; null when there is no SKILL.md.
 */
function readSkillFile(folderPath: string, viaProc: boolean): string | null {
  const folder = openSync(folderPath, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  let fd: number;
  try {
    fd = openSync(viaProc ? `/proc/self/fd/${folder}/SKILL.md` : path.join(folderPath, "SKILL.md"), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    if (isMissing(e)) return null;
    throw (e as NodeJS.ErrnoException).code === "ELOOP" ? new SkillRefused("is a symlink; keep SKILL.md a regular file in its folder") : e;
  } finally {
    closeSync(folder);
  }
  try {
    return readOpenedSync(fd, MAX_SKILL_BYTES);
  } catch (e) {
    throw e instanceof FileRefused ? new SkillRefused(e.message) : e;
  } finally {
    closeSync(fd);
  }
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

// Skills, the SKILL.md convention several agents share: a folder `.hel/skills/<name>/` or
// `.agents/skills/<name>/` of the project, or `skills/<name>/` in the user's hel folder, whose SKILL.md
// opens with front matter naming the skill and saying when it applies. The system prompt lists them
// (skillsSection) and the model reads a skill with read_file when it needs it, so only the front
// matter is read here. A project's skill folder and its SKILL.md are reached from the project without
// a symlink, so read_file finds what is listed; the user's folder may lead anywhere (the user put it
// there), is listed under the real path of the user's skills folder, and its SKILL.md is no symlink.
// A file that cannot be used is skipped with one warning naming it; a name taken already (the project's
// folders come first) is left out.
import { constants } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { z } from "../zod.js";
import { formatSize } from "../format.js";
import { openBeneath, PathChangedError, type OpenDir } from "../fs/beneath.js";
import { parseFrontMatter } from "../fs/front-matter.js";
import { readBounded } from "../fs/regular-file.js";
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
      for (const entry of folders.sort((x, y) => (x.name < y.name ? -1 : 1))) candidates.set(entry.name, { name: entry.name, dir: path.join(root, entry.name), projectRoot: dir });
    }
    // A few at a time, each holding a few open files, so hundreds of skills do not hold up the start;
    // the warnings follow in the folders' order.
    const list = [...candidates.values()];
    const loaded: (Skill | string | null)[] = new Array(list.length).fill(null);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < list.length; i = next++) loaded[i] = await loadSkill(projectDir, list[i]!);
    };
    await Promise.all(Array.from({ length: Math.min(LOADING_AT_ONCE, list.length) }, worker));
    for (const problem of loaded) if (typeof problem === "string") warn(problem);
    return loaded.filter((s): s is Skill => typeof s === "object" && s !== null).sort((a, b) => (a.name < b.name ? -1 : 1));
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
}

/** The skill in a folder; null when it has no SKILL.md; a warning's line when it cannot be used. */
async function loadSkill(projectDir: string, { name, dir, projectRoot }: Candidate): Promise<Skill | string | null> {
  const file = path.join(dir, "SKILL.md");
  const shown = projectRoot ? path.relative(projectDir, file).split(path.sep).join("/") : file;
  const skip = (problem: string) => `the skill ${shown} ${problem}, so it is skipped — fix it or remove the folder`;
  let folder: OpenDir;
  let real = dir;
  try {
    if (projectRoot) {
      folder = await projectRoot.child(name);
    } else {
      // The user's folder may be a symlink to wherever the user keeps it: read_file follows it there.
      real = await realpath(dir);
      folder = await openBeneath(real, []);
    }
  } catch (e) {
    if (e instanceof PathChangedError) return skip("is reached through a symlink; a project's skills are kept in its own folders");
    return isMissing(e) ? null : skip(`cannot be opened (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let text: string | null;
  try {
    text = await readSkillFile(folder);
  } catch (e) {
    return skip(e instanceof PathChangedError ? "is a symlink; keep SKILL.md a regular file in its folder" : String((e as Error).message));
  } finally {
    await folder.close();
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

/** SKILL.md's text, opened without following a symlink; null when there is none. */
async function readSkillFile(folder: OpenDir): Promise<string | null> {
  const fh = await folder.open("SKILL.md", constants.O_RDONLY | constants.O_NONBLOCK).catch((e: unknown) => {
    if (isMissing(e)) return null;
    throw e;
  });
  if (fh === null) return null;
  try {
    const info = await fh.stat();
    if (!info.isFile()) throw new Error("is not a regular file");
    const text = await readBounded(fh, info.size, MAX_SKILL_BYTES);
    if (text === null) throw new Error(`is larger than ${formatSize(MAX_SKILL_BYTES)}`);
    return text;
  } finally {
    await fh.close();
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

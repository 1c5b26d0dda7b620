// Skills, the SKILL.md convention several agents share: a folder `.hel/skills/<name>/` or
// `.agents/skills/<name>/` of the project, or `skills/<name>/` in the user's hel folder, whose SKILL.md
// opens with front matter naming the skill and saying when it applies. The system prompt lists them
// (skillsSection) and the model reads a skill with read_file when it needs it, so only the front
// matter is read here. A project's skill folder and its SKILL.md are reached from the project without
// a symlink, so read_file finds what is listed; the user's folder may lead anywhere (the user put it
// there), is listed under the real path of the user's skills folder, and its SKILL.md is no symlink.
// A file that cannot be used is skipped with one warning naming it; a name taken already (the project's
// folders come first) is left out.
import { closeSync, constants, lstatSync, openSync, readdirSync, realpathSync, type Dirent, type Stats } from "node:fs";
import path from "node:path";
import { z } from "../zod.js";
import { hasProcFd, openBeneath, PathChangedError, type OpenDir } from "../fs/beneath.js";
import { FileMemo } from "../fs/file-memo.js";
import { parseFrontMatter } from "../fs/front-matter.js";
import { FileRefused, readOpenedSync } from "../fs/regular-file.js";
import { redactSecrets } from "../redact.js";
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

/** What a kept skill was checked against (fs/file-memo.ts): this module as built, whose bundled file is named by its code. */
const SKILL_CHECKS = import.meta.url;

/** What a start keeps of a skill for the next: what its SKILL.md says, masked, once checked. */
interface KeptSkill {
  description: string;
}

/** A folder whose subfolders are skills: a project's, reached from the project by `walk`; the user's (walk null). */
interface Source {
  root: string;
  walk: readonly string[] | null;
  /** Whether a project's folder was reached without a symlink when it was listed; the user's may be reached through any. */
  direct: boolean;
}

interface Candidate {
  name: string;
  source: Source;
  /** The folder's absolute path. */
  dir: string;
  /** Its SKILL.md's absolute path, and as the system prompt lists it. */
  file: string;
  shown: string;
  symlink: boolean;
}

export interface SkillsSettings {
  projectDir: string;
  /** hel's folder of the user's files. */
  userDir: string;
  /** Masked in the descriptions, which go into requests and the memo. */
  secrets: readonly string[];
  warn(line: string): void;
  /** When this start reads the files (fs/file-memo.ts); a test gives a later one. */
  now?: number;
}

/**
 * The skills of the project and of the user, sorted by name. A skill whose SKILL.md is as it was when
 * an earlier start checked it is taken from the memo; only the others are read, and only they may warn.
 */
export async function loadSkills({ projectDir, userDir, secrets, warn, now }: SkillsSettings): Promise<Skill[]> {
  const userSkills = realPathOrNull(path.join(userDir, "skills"));
  const project = (walk: string[]): Source => ({ root: path.join(projectDir, ...walk), walk, direct: withoutLink(projectDir, walk) });
  const sources: Source[] = [project([".hel", "skills"]), project([".agents", "skills"]), ...(userSkills ? [{ root: userSkills, walk: null, direct: true }] : [])];
  // A folder's name is its skill's: the first folder of a name is the one read.
  const candidates = new Map<string, Candidate>();
  for (const source of sources) {
    // Most projects have no skills: asked without an exception, which costs far more than the lstat.
    if (!source.direct && !lstatSync(source.root, { throwIfNoEntry: false })) continue;
    let entries: Dirent[];
    try {
      entries = readdirSync(source.root, { withFileTypes: true });
    } catch {
      continue;
    }
    // Each folder's name, and whether it is a symlink.
    const folders = new Map<string, boolean>();
    for (const e of entries) if ((e.isDirectory() || e.isSymbolicLink()) && !candidates.has(e.name)) folders.set(e.name, e.isSymbolicLink());
    // Names sorted by the native sort, paths joined by hand: with hundreds of skills, a comparator
    // called for each pair and path.join normalizing each path again are what a start notices.
    for (const name of [...folders.keys()].sort()) {
      const dir = `${source.root}${path.sep}${name}`;
      const file = `${dir}${path.sep}SKILL.md`;
      const shown = source.walk ? `${source.walk.join("/")}/${name}/SKILL.md` : file;
      candidates.set(name, { name, source, dir, file, shown, symlink: folders.get(name)! });
    }
  }
  if (candidates.size === 0) return [];
  const memo = FileMemo.open<KeptSkill>(projectDir, "skills", SKILL_CHECKS, now);
  const found = new Map<string, Skill>();
  const unread: Unread[] = [];
  for (const candidate of candidates.values()) {
    const lookup = lookUp(candidate);
    const kept = lookup && keptSkill(candidate, lookup, memo, secrets);
    if (kept) found.set(candidate.name, kept);
    else unread.push({ candidate, lookup });
  }
  if (unread.length > 0) for (const skill of await readSkills(projectDir, unread, memo, secrets, warn)) found.set(skill.name, skill);
  memo.save();
  const skills: Skill[] = [];
  for (const name of [...found.keys()].sort()) skills.push(found.get(name)!);
  return skills;
}

/** Whether each of `walk`, from `root` down, is a directory and none a symlink. */
function withoutLink(root: string, walk: readonly string[]): boolean {
  let at = root;
  for (const name of walk) {
    at = `${at}${path.sep}${name}`;
    const stats = lstatSync(at, { throwIfNoEntry: false });
    if (!stats?.isDirectory()) return false;
  }
  return true;
}

function realPathOrNull(dir: string): string | null {
  if (!lstatSync(dir, { throwIfNoEntry: false })) return null;
  try {
    return realpathSync.native(dir);
  } catch {
    return null;
  }
}

/**
 * Where read_file finds the folder: the user's folder may be a symlink to wherever the user keeps it,
 * and read_file follows it there (the user's skills folder is listed by its real path already).
 */
const realFolder = ({ source, dir, symlink }: Candidate): string => (source.walk === null && symlink ? realpathSync.native(dir) : dir);

/** Where a skill's SKILL.md was looked up at the start: its folder's real path, and the file's stats (undefined: none there). */
interface Lookup {
  real: string;
  stats: Stats | undefined;
}

/** A skill to read from its file, with its lookup when it had one (none: it failed, and the read says why). */
interface Unread {
  candidate: Candidate;
  lookup: Lookup | null;
}

/**
 * Its folder's real path and its SKILL.md's stats, taken by path: a file found in the memo by its
 * identity is the very file a read checked, and a read takes them before it reads, so that a change
 * made while it reads is seen next time. Null for a project's skill reached through a symlink, which
 * is never taken from the memo, and when the lookup fails.
 */
function lookUp(candidate: Candidate): Lookup | null {
  if (!candidate.source.direct || (candidate.source.walk && candidate.symlink)) return null;
  try {
    const real = realFolder(candidate);
    return { real, stats: lstatSync(real === candidate.dir ? candidate.file : `${real}${path.sep}SKILL.md`, { throwIfNoEntry: false }) };
  } catch {
    return null;
  }
}

/** The skill as the memo has it, when its SKILL.md is a regular file unchanged since a start checked it. */
function keptSkill(candidate: Candidate, { real, stats }: Lookup, memo: FileMemo<KeptSkill>, secrets: readonly string[]): Skill | null {
  const kept = stats?.isFile() ? memo.get(candidate.file, stats) : undefined;
  if (kept === undefined) return null;
  return { name: candidate.name, description: redactSecrets(kept.description, secrets), path: candidate.shown, folder: { dir: candidate.dir, real } };
}

/** The skills of `unread` read from their files, each project's skills folder opened once without following a symlink. */
async function readSkills(projectDir: string, unread: readonly Unread[], memo: FileMemo<KeptSkill>, secrets: readonly string[], warn: (line: string) => void): Promise<Skill[]> {
  const opened = new Map<Source, OpenDir | null>();
  try {
    for (const source of new Set(unread.map((u) => u.candidate.source))) {
      if (!source.walk) continue;
      try {
        opened.set(source, await openBeneath(projectDir, source.walk));
      } catch (e) {
        opened.set(source, null);
        warn(`the skills folder ${source.walk.join("/")} cannot be used (${e instanceof PathChangedError ? "it is reached through a symlink" : String((e as NodeJS.ErrnoException).code ?? e)}), so its skills are skipped — keep a project's skills in its own folders`);
      }
    }
    // Read synchronously: nothing else waits at the start, and hundreds of skills must not hold it up.
    const viaProc = await hasProcFd();
    const skills: Skill[] = [];
    for (const skill of unread) {
      const root = opened.get(skill.candidate.source);
      if (root === null) continue;
      const loaded = loadSkill(skill, root ?? null, { viaProc, memo, secrets });
      if (typeof loaded === "string") warn(loaded);
      else if (loaded) skills.push(loaded);
    }
    return skills;
  } finally {
    await Promise.all([...opened.values()].map((d) => d?.close()));
  }
}

interface Reading {
  viaProc: boolean;
  memo: FileMemo<KeptSkill>;
  secrets: readonly string[];
}

/**
 * The skill in a folder, read from its SKILL.md (a project's through its open skills folder,
 * `projectRoot`); null when it has no SKILL.md; a warning's line when it cannot be used.
 */
function loadSkill({ candidate, lookup }: Unread, projectRoot: OpenDir | null, { viaProc, memo, secrets }: Reading): Skill | string | null {
  const { name, dir, file, shown, symlink } = candidate;
  const skip = (problem: string) => `the skill ${shown} ${problem}, so it is skipped — fix it or remove the folder`;
  const throughLink = "is reached through a symlink; a project's skills are kept in its own folders";
  if (projectRoot && symlink) return skip(throughLink);
  let text: string | null;
  let real = dir;
  let stats;
  try {
    // Looked up at the start unless that failed, when the read says why (or a skill reached through a
    // symlink, whose stats are not kept).
    real = lookup?.real ?? realFolder(candidate);
    stats = lookup?.stats;
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
  const description = redactSecrets(head.data.description.replace(/\s+/g, " ").trim(), secrets);
  if (stats?.isFile()) memo.put(file, stats, { description });
  return { name, description, path: shown, folder: { dir, real } };
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
    const names = byFolder.get(folder);
    if (names) names.push(skill.name);
    else byFolder.set(folder, [skill.name]);
  }
  lines.push("More skills, by name only (the SKILL.md of each is in <folder>/<name>/):");
  for (const [folder, names] of byFolder) lines.push(`- ${folder}/: ${names.join(", ")}`);
  return lines;
}

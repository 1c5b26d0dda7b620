// Skills, the SKILL.md convention several agents share: a folder `.hel/skills/<name>/` or
// `.agents/skills/<name>/` of the project, or `skills/<name>/` in the user's hel folder, whose SKILL.md
// opens with front matter naming the skill and saying when it applies. The system prompt lists them
// (agent/skills.ts) and the model reads a skill with read_file when it needs it, so only the front
// matter is read here. A project's skill folder and its SKILL.md are reached from the project without
// a symlink, so read_file finds what is listed; the user's folder may lead anywhere (the user put it
// there), is listed under the real path of the user's skills folder, and its SKILL.md is no symlink.
// A file that cannot be used is left out with one diagnostic naming it; of a name found twice, the
// project's wins (precedence.ts; of its two folders, .hel/skills/ first).
import { readdirSync, realpathSync, type Dirent, type Stats } from "node:fs";
import path from "node:path";
import { z } from "../zod.js";
import { PathChangedError } from "../fs/beneath.js";
import { FileMemo } from "../fs/file-memo.js";
import { parseFrontMatter } from "../fs/front-matter.js";
import { quietStat } from "../fs/quiet-stat.js";
import { FileRefused } from "../fs/regular-file.js";
import type { Diagnostic } from "../diagnostics.js";
import { redactSecrets } from "../redact.js";
import { isMissing } from "../tools/paths.js";
import type { Skill } from "../agent/skill-listing.js";
import { byPrecedence, type Scope } from "./precedence.js";
import { OpenFolder, realPathOrNull } from "./read-beneath.js";

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

/**
 * What a start keeps of a skill for the next, once checked: the skill as listed, or the diagnostic's
 * line when its SKILL.md cannot be used; masked. Only skills whose folders are no symlink are kept, so the
 * folder's real path is its path.
 */
type KeptSkill = Skill | string;

/** A folder whose subfolders are skills: a project's, reached from the project by `walk`; the user's (walk null). */
interface Source {
  scope: Scope;
  root: string;
  walk: readonly string[] | null;
  /** Whether a project's folder was reached without a symlink when it was listed; the user's may be reached through any. */
  direct: boolean;
}

interface Candidate {
  scope: Scope;
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
  /** When this start reads the files (fs/file-memo.ts); a test gives a later one. */
  now?: number;
}

/**
 * The skills of the project and of the user, sorted by name. A skill whose SKILL.md is as it was when
 * an earlier start checked it is taken from the memo, with the diagnostic it had; only the others are read.
 */
export function loadSkills({ projectDir, userDir, secrets, now }: SkillsSettings): { skills: Skill[]; diagnostics: Diagnostic[] } {
  const userSkills = realPathOrNull(path.join(userDir, "skills"));
  const project = (walk: string[]): Source => ({ scope: "project", root: path.join(projectDir, ...walk), walk, direct: withoutLink(projectDir, walk) });
  const sources: Source[] = [project([".hel", "skills"]), project([".agents", "skills"]), ...(userSkills ? [{ scope: "user" as const, root: userSkills, walk: null, direct: true }] : [])];
  const listed: Candidate[] = [];
  for (const source of sources) {
    // Most projects have no skills: asked without an exception, which costs far more than the lstat.
    if (!source.direct && !quietStat(source.root)) continue;
    let entries: Dirent[];
    try {
      entries = readdirSync(source.root, { withFileTypes: true });
    } catch {
      continue;
    }
    const names: string[] = [];
    const links = new Set<string>();
    for (const e of entries) {
      if (e.isDirectory()) names.push(e.name);
      else if (e.isSymbolicLink()) {
        names.push(e.name);
        links.add(e.name);
      }
    }
    // Names sorted by the native sort, paths joined by hand: with hundreds of skills, a comparator
    // called for each pair and path.join normalizing each path again are what a start notices.
    const shownFolder = source.walk ? `${source.walk.join("/")}/` : `${source.root}${path.sep}`;
    for (const name of names.sort()) {
      const dir = `${source.root}${path.sep}${name}`;
      const file = `${dir}${path.sep}SKILL.md`;
      listed.push({ scope: source.scope, name, source, dir, file, shown: source.walk ? `${shownFolder}${name}/SKILL.md` : file, symlink: links.has(name) });
    }
  }
  // A folder's name is its skill's: only the folder that wins the name is read.
  const candidates = byPrecedence(listed, (c) => c.name);
  const diagnostics: Diagnostic[] = [];
  if (candidates.size === 0) return { skills: [], diagnostics };
  const memo = FileMemo.open<KeptSkill>(projectDir, "skills", { stamp: SKILL_CHECKS, secrets, now });
  const found = new Map<string, Skill>();
  const unread: Unread[] = [];
  for (const candidate of candidates.values()) {
    const stats = statsOf(candidate);
    const kept = stats?.isFile() ? memo.get(candidate.file, stats) : undefined;
    if (kept === undefined) unread.push({ candidate, stats });
    else if (typeof kept === "string") diagnostics.push({ file: candidate.shown, problem: kept });
    else found.set(candidate.name, kept);
  }
  if (unread.length > 0) for (const skill of readSkills(projectDir, unread, memo, secrets, diagnostics)) found.set(skill.name, skill);
  memo.save();
  const skills: Skill[] = [];
  for (const name of [...found.keys()].sort()) skills.push(found.get(name)!);
  return { skills, diagnostics };
}

/** Whether each of `walk`, from `root` down, is a directory and none a symlink. */
function withoutLink(root: string, walk: readonly string[]): boolean {
  let at = root;
  for (const name of walk) {
    at = `${at}${path.sep}${name}`;
    if (!quietStat(at)?.isDirectory()) return false;
  }
  return true;
}

/**
 * Where read_file finds the folder: the user's folder may be a symlink to wherever the user keeps it,
 * and read_file follows it there (the user's skills folder is listed by its real path already).
 */
const realFolder = ({ source, dir, symlink }: Candidate): string => (source.walk === null && symlink ? realpathSync.native(dir) : dir);

/** A skill to read from its file, with its SKILL.md's stats when they were taken. */
interface Unread {
  candidate: Candidate;
  stats: Stats | undefined;
}

/**
 * Its SKILL.md's stats, taken by path: a file found in the memo by its identity is the very file a
 * read checked, and a read takes them before it reads, so that a change made while it reads is seen
 * next time. None for a skill whose folder is a symlink or whose project folder is reached through
 * one, which is never kept, so that a kept skill's folder is where it was listed; none either when
 * there is no SKILL.md or it cannot be reached, which the read then says.
 */
function statsOf(candidate: Candidate): Stats | undefined {
  if (!candidate.source.direct || candidate.symlink) return undefined;
  return quietStat(candidate.file);
}

/** The skills of `unread` read from their files, each project's skills folder opened once without following a symlink. */
function readSkills(projectDir: string, unread: readonly Unread[], memo: FileMemo<KeptSkill>, secrets: readonly string[], diagnostics: Diagnostic[]): Skill[] {
  const opened = new Map<Source, OpenFolder | null>();
  try {
    for (const source of new Set(unread.map((u) => u.candidate.source))) {
      if (!source.walk) continue;
      try {
        opened.set(source, OpenFolder.open(projectDir, source.walk));
      } catch (e) {
        opened.set(source, null);
        diagnostics.push({
          file: source.walk.join("/"),
          problem: `the skills folder ${source.walk.join("/")} cannot be used (${e instanceof PathChangedError ? "it is reached through a symlink" : String((e as NodeJS.ErrnoException).code ?? e)}), so its skills are skipped — keep a project's skills in its own folders`,
        });
      }
    }
    const skills: Skill[] = [];
    for (const skill of unread) {
      const root = opened.get(skill.candidate.source);
      if (root === null) continue;
      const read = readSkill(skill.candidate, root ?? null);
      if (read === null) continue;
      if (read instanceof Unusable) {
        diagnostics.push({ file: skill.candidate.shown, problem: read.line });
        continue;
      }
      // Kept whatever its text makes of it: a file that could be read reads the same until it changes.
      const loaded = skillOf(skill.candidate, read, secrets);
      if (skill.stats?.isFile()) memo.put(skill.candidate.file, skill.stats, loaded);
      if (typeof loaded === "string") diagnostics.push({ file: skill.candidate.shown, problem: loaded });
      else skills.push(loaded);
    }
    return skills;
  } finally {
    for (const folder of opened.values()) folder?.close();
  }
}

/** A skill's file that cannot be used, with the diagnostic's line. */
class Unusable {
  constructor(readonly line: string) {}
}

/** The diagnostic's line for a skill that cannot be used. */
const skipLine = ({ shown }: Candidate, problem: string): string => `the skill ${shown} ${problem}, so it is skipped — fix it or remove the folder`;
const THROUGH_LINK = "is reached through a symlink; a project's skills are kept in its own folders";

/** A skill's SKILL.md as read: its text, and the real path of its folder. */
interface Read {
  text: string;
  real: string;
}

/**
 * A skill's SKILL.md read (a project's through its open skills folder, `projectRoot`, and its own
 * folder opened from there without following a symlink); null when it has none; Unusable when it
 * cannot be read.
 */
function readSkill(candidate: Candidate, projectRoot: OpenFolder | null): Read | Unusable | null {
  if (projectRoot && candidate.symlink) return new Unusable(skipLine(candidate, THROUGH_LINK));
  let folder: OpenFolder | undefined;
  try {
    const real = realFolder(candidate);
    folder = projectRoot ? projectRoot.child(candidate.name) : OpenFolder.open(real);
    const text = folder.read("SKILL.md", MAX_SKILL_BYTES);
    return text === null ? null : { text, real };
  } catch (e) {
    // The folder became a symlink since it was listed.
    if (e instanceof PathChangedError) return new Unusable(skipLine(candidate, THROUGH_LINK));
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return new Unusable(skipLine(candidate, "is a symlink; keep SKILL.md a regular file in its folder"));
    if (isMissing(e)) return null;
    return new Unusable(skipLine(candidate, e instanceof FileRefused ? e.message : `cannot be read (${code ?? String(e)})`));
  } finally {
    folder?.close();
  }
}

/** The skill its SKILL.md's text makes of a folder, or the diagnostic's line when the text cannot be used; masked. */
function skillOf(candidate: Candidate, { text, real }: Read, secrets: readonly string[]): Skill | string {
  const { name, dir, shown } = candidate;
  const skip = (problem: string) => redactSecrets(skipLine(candidate, problem), secrets);
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
  return { name, description, path: shown, folder: { dir, real } };
}

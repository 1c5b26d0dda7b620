import { mkdir, readFile, realpath, rename, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Skill } from "../../src/agent/skill-listing.js";
import { memoFile, memoSaves } from "../../src/fs/file-memo.js";
import { loadSkills, type SkillsSettings } from "../../src/resources/skills.js";
import { tempProject } from "../helpers/temp-project.js";

/** The skills loaded, each diagnostic's line given to `warn`, as the terminal prints it. */
async function loadWarning({ warn, ...settings }: SkillsSettings & { warn(line: string): void }): Promise<Skill[]> {
  const { skills, diagnostics } = await loadSkills(settings);
  for (const d of diagnostics) warn(d.problem);
  return skills;
}

const skillFile = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\nDo it this way.\n`;

async function writeSkill(root: string, name: string, text: string): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(join(root, name, "SKILL.md"), text);
}

describe("loadSkills", () => {
  it("reads the project's two folders and the user's, by name, the project's first (a name's first folder is the one read); bad files are skipped with one warning each", async () => {
    const project = await tempProject();
    const user = await realpath(await tempProject());
    await writeSkill(join(project, ".hel", "skills"), "deploy", skillFile("deploy", "Ship to staging."));
    await writeSkill(join(project, ".agents", "skills"), "api-docs", skillFile("api-docs", "Write API docs."));
    await writeSkill(join(project, ".agents", "skills"), "deploy", skillFile("deploy", "Not read: .hel/skills has it."));
    await writeSkill(join(user, "skills"), "commit", skillFile("commit", "Write a commit message."));
    await writeSkill(join(project, ".hel", "skills"), "no-desc", "---\nname: no-desc\n---\n");
    await writeSkill(join(project, ".hel", "skills"), "other", skillFile("wrong", "Named unlike its folder."));
    await writeSkill(join(project, ".hel", "skills"), "open", "---\nname: open\n");
    await mkdir(join(project, ".hel", "skills", "empty"));
    await writeFile(join(project, ".hel", "skills", "README.md"), "not a skill");
    const warnings: string[] = [];
    const skills = await loadWarning({ projectDir: project, userDir: user, secrets: [], warn: (line) => warnings.push(line) });
    expect(skills.map((s) => [s.name, s.description, s.path])).toEqual([
      ["api-docs", "Write API docs.", ".agents/skills/api-docs/SKILL.md"],
      ["commit", "Write a commit message.", join(user, "skills", "commit", "SKILL.md")],
      ["deploy", "Ship to staging.", ".hel/skills/deploy/SKILL.md"],
    ]);
    expect(skills[1]!.folder).toEqual({ dir: join(user, "skills", "commit"), real: join(user, "skills", "commit") });
    expect(warnings).toEqual([
      'the skill .hel/skills/no-desc/SKILL.md has a bad "description" in its front matter: it must be given, as text, so it is skipped — fix it or remove the folder',
      "the skill .hel/skills/open/SKILL.md has unreadable front matter: the front matter opened by --- on line 1 has no closing --- line, so it is skipped — fix it or remove the folder",
      'the skill .hel/skills/other/SKILL.md is named "wrong" in its front matter, not "other" as its folder is, so it is skipped — fix it or remove the folder',
    ]);
  });

  it("a project's skill folder reached through a symlink, or a SKILL.md that is one, is skipped; the user's may be a symlink, listed under the user's folder", async () => {
    const project = await tempProject();
    const user = await realpath(await tempProject());
    const elsewhere = await realpath(await tempProject());
    await writeSkill(elsewhere, "shared", skillFile("shared", "Shared by symlink."));
    await writeSkill(elsewhere, "outer", skillFile("outer", "Outside the project."));
    await mkdir(join(project, ".hel", "skills"), { recursive: true });
    await symlink(join(elsewhere, "outer"), join(project, ".hel", "skills", "outer"));
    await mkdir(join(project, ".agents", "skills", "linked"), { recursive: true });
    await symlink(join(elsewhere, "outer", "SKILL.md"), join(project, ".agents", "skills", "linked", "SKILL.md"));
    await mkdir(join(user, "skills"));
    await symlink(join(elsewhere, "shared"), join(user, "skills", "shared"));
    const warnings: string[] = [];
    const skills = await loadWarning({ projectDir: project, userDir: user, secrets: [], warn: (line) => warnings.push(line) });
    expect(warnings).toEqual([
      "the skill .hel/skills/outer/SKILL.md is reached through a symlink; a project's skills are kept in its own folders, so it is skipped — fix it or remove the folder",
      "the skill .agents/skills/linked/SKILL.md is a symlink; keep SKILL.md a regular file in its folder, so it is skipped — fix it or remove the folder",
    ]);
    expect(skills.map((s) => [s.path, s.folder])).toEqual([[join(user, "skills", "shared", "SKILL.md"), { dir: join(user, "skills", "shared"), real: join(elsewhere, "shared") }]]);
  });
});

/** Rewrites a memo by `edit` and gives it back its modification time, the seal hel checks. */
async function resealed(file: string, edit: (text: string) => string): Promise<void> {
  const { mtime } = await stat(file);
  await writeFile(file, edit(await readFile(file, "utf8")));
  await utimes(file, mtime, mtime);
}

describe("loadSkills in a later start", () => {
  const later = () => Date.now() + 60_000;

  it("takes unchanged skills from the memo, reads a changed one again, and keeps no secret there", async () => {
    const project = await tempProject();
    const none = join(project, "no-user");
    await mkdir(join(project, ".hel"));
    await writeSkill(join(project, ".hel", "skills"), "deploy", skillFile("deploy", "Ship to staging with tok-0123456789."));
    await writeSkill(join(project, ".agents", "skills"), "lint", skillFile("lint", "Run the linter."));
    const load = (secrets: string[], warnings: string[] = []) => loadWarning({ projectDir: project, userDir: none, secrets, warn: (l) => warnings.push(l), now: later() });
    const first = await load(["tok-0123456789"]);
    await memoSaves();
    const memo = await readFile(memoFile(project, "skills"), "utf8");
    expect(memo).toContain("Run the linter.");
    expect(memo).not.toContain("tok-0123456789");
    expect(await load(["tok-0123456789"])).toEqual(first);
    // What a later start lists comes from the memo while the file is unchanged: shown by a memo
    // changed behind hel's back, its seal put back.
    await resealed(memoFile(project, "skills"), (text) => text.replace("Run the linter.", "Kept: the linter."));
    expect((await load([])).map((s) => s.description)).toEqual(["Ship to staging with [REDACTED].", "Kept: the linter."]);
    // Edited in place, to the same size: read again.
    await writeFile(join(project, ".agents", "skills", "lint", "SKILL.md"), skillFile("lint", "Run the checker."));
    expect((await load([])).map((s) => s.description)).toEqual(["Ship to staging with [REDACTED].", "Run the checker."]);
  });

  it("warns of a bad SKILL.md in every start, the warning kept in the memo while the file is unchanged", async () => {
    const project = await tempProject();
    await mkdir(join(project, ".hel"));
    await writeSkill(join(project, ".hel", "skills"), "deploy", skillFile("deploy", "Ship to staging."));
    await writeSkill(join(project, ".hel", "skills"), "misnamed", skillFile("other", "Named for another folder."));
    const load = async () => {
      const warnings: string[] = [];
      const skills = await loadWarning({ projectDir: project, userDir: join(project, "no-user"), secrets: [], warn: (l) => warnings.push(l), now: later() });
      return { names: skills.map((s) => s.name), warnings };
    };
    const first = await load();
    expect(first).toEqual({
      names: ["deploy"],
      warnings: ['the skill .hel/skills/misnamed/SKILL.md is named "other" in its front matter, not "misnamed" as its folder is, so it is skipped — fix it or remove the folder'],
    });
    expect(await load()).toEqual(first);
    await memoSaves();
    await resealed(memoFile(project, "skills"), (text) => text.replace('is named \\"other\\"', 'is named \\"kept\\"'));
    expect((await load()).warnings).toEqual([expect.stringContaining('is named "kept" in its front matter')]);
  });

  it("does not take a project's skill from the memo once its folder, or the skills folder, is reached through a symlink", async () => {
    const project = await tempProject();
    const elsewhere = await tempProject();
    await mkdir(join(project, ".hel"));
    await writeSkill(join(project, ".hel", "skills"), "deploy", skillFile("deploy", "Ship to staging."));
    await writeSkill(join(project, ".agents", "skills"), "lint", skillFile("lint", "Run the linter."));
    const load = (warnings: string[]) => loadWarning({ projectDir: project, userDir: join(project, "no-user"), secrets: [], warn: (l) => warnings.push(l), now: later() });
    expect((await load([])).map((s) => s.name)).toEqual(["deploy", "lint"]);
    // Moved out of the project and linked back: the same files, now outside it.
    await rename(join(project, ".agents", "skills", "lint"), join(elsewhere, "lint"));
    await symlink(join(elsewhere, "lint"), join(project, ".agents", "skills", "lint"));
    await rename(join(project, ".hel", "skills"), join(elsewhere, "hel-skills"));
    await symlink(join(elsewhere, "hel-skills"), join(project, ".hel", "skills"));
    const warnings: string[] = [];
    expect(await load(warnings)).toEqual([]);
    expect(warnings).toEqual([
      "the skills folder .hel/skills cannot be used (it is reached through a symlink), so its skills are skipped — keep a project's skills in its own folders",
      "the skill .agents/skills/lint/SKILL.md is reached through a symlink; a project's skills are kept in its own folders, so it is skipped — fix it or remove the folder",
    ]);
  });
});

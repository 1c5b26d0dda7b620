import { describe, expect, it } from "vitest";
import { MAX_SKILL_LISTING, skillsSection } from "../../src/agent/skill-listing.js";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";

describe("skillsSection", () => {
  it("is nothing without skills, so the system prompt is what it was", () => {
    const env = { projectDir: "/work/app", platform: "linux x64", date: "2026-11-30", rules: [{ file: "HEL.md", text: "Use tabs." }] };
    expect(skillsSection([])).toEqual([]);
    expect(buildSystemPrompt({ ...env, skills: [] })).toBe(buildSystemPrompt(env));
  });

  it("lists name, description and path in name order up to its bound, the rest by name only under their folder", () => {
    const skills = Array.from({ length: 60 }, (_, i) => {
      const name = `skill-${String(59 - i).padStart(2, "0")}`;
      const folder = i % 2 === 0 ? ".hel/skills" : "/home/u/.config/hel/skills";
      return { name, description: `Does task number ${59 - i} of the project.`, path: `${folder}/${name}/SKILL.md` };
    });
    const lines = skillsSection(skills);
    expect(lines.slice(0, 4)).toEqual([
      "",
      "# Skills",
      "A skill is a folder of instructions for one kind of task. When a task fits a skill's description, read its SKILL.md with read_file at the path listed before you start, and follow it; read_file reads the other files in its folder too.",
      "- skill-00: Does task number 0 of the project. (/home/u/.config/hel/skills/skill-00/SKILL.md)",
    ]);
    const full = lines.filter((l) => l.startsWith("- skill-"));
    expect(full.join("\n").length).toBeLessThanOrEqual(MAX_SKILL_LISTING);
    expect(full.length).toBeGreaterThan(10);
    const rest = lines.slice(3 + full.length);
    expect(rest[0]).toBe("More skills, by name only (the SKILL.md of each is in <folder>/<name>/):");
    // Skill N is in the user's folder when N is even: the first left over names the first folder.
    const groups = rest.slice(1).map((l) => /^- (.*)\/: (.*)$/.exec(l)!);
    const folders = ["/home/u/.config/hel/skills", ".hel/skills"];
    expect(groups.map((g) => g[1])).toEqual(full.length % 2 === 0 ? folders : folders.reverse());
    expect(groups.flatMap((g) => g[2]!.split(", ")).sort()).toEqual(
      skills
        .map((s) => s.name)
        .sort()
        .slice(full.length),
    );
    // Every skill is named once, in one form or the other.
    for (const s of skills) expect(lines.filter((l) => l.includes(s.name)).length).toBe(1);
    // The input's order does not matter: the lines are the same bytes.
    expect(skillsSection([...skills].reverse())).toEqual(lines);
  });
});

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSystemPrompt, isoDay, loadProjectRules } from "../../src/agent/system-prompt.js";
import { tempProject } from "../helpers/temp-project.js";

describe("system prompt", () => {
  it("holds the environment and the project's rules, and is the same bytes for the same inputs", () => {
    const env = { projectDir: "/work/app", platform: "linux x64", date: "2026-11-30", rules: [{ file: "HEL.md", text: "Use tabs.\n" }] };
    const prompt = buildSystemPrompt(env);
    expect(prompt).toContain("Project directory: /work/app\nPlatform: linux x64\nDate: 2026-11-30");
    expect(prompt.endsWith("# Project rules (HEL.md)\nUse tabs.")).toBe(true);
    expect(buildSystemPrompt({ ...env })).toBe(prompt);
    expect(buildSystemPrompt({ ...env, rules: [] })).not.toContain("Project rules");
    // At the project's root the prompt names no folder; below it, the folder, and that paths stay the root's.
    expect(buildSystemPrompt({ ...env, here: "" })).toBe(prompt);
    expect(buildSystemPrompt({ ...env, here: "pkg/api" })).toContain("Project directory: /work/app\nCurrent folder: pkg/api (where the user is working; paths stay relative to the project directory)\nPlatform");
  });

  it("the date has day precision, so a resume later the same day sends the same prefix", () => {
    expect(isoDay(new Date("2026-11-30T00:01:00Z"))).toBe(isoDay(new Date("2026-11-30T23:59:00Z")));
  });

  it("reads HEL.md, else AGENTS.md, else nothing", async () => {
    const dir = await tempProject();
    const warnings: string[] = [];
    const warn = (line: string) => warnings.push(line);
    expect(await loadProjectRules(dir, "", warn)).toEqual([]);
    await writeFile(join(dir, "AGENTS.md"), "agents");
    expect(await loadProjectRules(dir, "", warn)).toEqual([{ file: "AGENTS.md", text: "agents" }]);
    await writeFile(join(dir, "HEL.md"), "hel");
    expect(await loadProjectRules(dir, "", warn)).toEqual([{ file: "HEL.md", text: "hel" }]);
    expect(warnings).toEqual([]);
  });

  it("reads each folder's rules from the root down to the current folder, the nearest last", async () => {
    const dir = await tempProject();
    await mkdir(join(dir, "a", "b", "c"), { recursive: true });
    await writeFile(join(dir, "HEL.md"), "root");
    await writeFile(join(dir, "a", "AGENTS.md"), "a");
    await writeFile(join(dir, "a", "b", "c", "HEL.md"), "below the current folder");
    await writeFile(join(dir, "a", "b", "HEL.md"), "b");
    await writeFile(join(dir, "a", "b", "AGENTS.md"), "not read: HEL.md comes first");
    expect(await loadProjectRules(dir, "a/b", () => undefined)).toEqual([
      { file: "HEL.md", text: "root" },
      { file: "a/AGENTS.md", text: "a" },
      { file: "a/b/HEL.md", text: "b" },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { buildSystemPrompt, isoDay } from "../../src/agent/system-prompt.js";

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
});

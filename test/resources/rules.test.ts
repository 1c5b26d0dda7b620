// The project's rules: each folder's from the root down, HEL.md before AGENTS.md, the run's secrets masked.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProjectRules } from "../../src/resources/rules.js";
import { tempProject } from "../helpers/temp-project.js";

describe("loadProjectRules", () => {
  it("reads HEL.md, else AGENTS.md, else nothing", async () => {
    const dir = await tempProject();
    expect(await loadProjectRules(dir, "", [])).toEqual({ rules: [], diagnostics: [] });
    await writeFile(join(dir, "AGENTS.md"), "agents");
    expect(await loadProjectRules(dir, "", [])).toEqual({ rules: [{ file: "AGENTS.md", text: "agents" }], diagnostics: [] });
    await writeFile(join(dir, "HEL.md"), "hel sk-secret-1");
    expect(await loadProjectRules(dir, "", ["sk-secret-1"])).toEqual({ rules: [{ file: "HEL.md", text: "hel [REDACTED]" }], diagnostics: [] });
  });

  it("reads each folder's rules from the root down to the current folder, the nearest last", async () => {
    const dir = await tempProject();
    await mkdir(join(dir, "a", "b", "c"), { recursive: true });
    await writeFile(join(dir, "HEL.md"), "root");
    await writeFile(join(dir, "a", "AGENTS.md"), "a");
    await writeFile(join(dir, "a", "b", "c", "HEL.md"), "below the current folder");
    await writeFile(join(dir, "a", "b", "HEL.md"), "b");
    await writeFile(join(dir, "a", "b", "AGENTS.md"), "not read: HEL.md comes first");
    expect((await loadProjectRules(dir, "a/b", [])).rules).toEqual([
      { file: "HEL.md", text: "root" },
      { file: "a/AGENTS.md", text: "a" },
      { file: "a/b/HEL.md", text: "b" },
    ]);
  });
});

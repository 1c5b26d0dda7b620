// The project's rules file (HEL.md, else AGENTS.md) follows the tools' path rules: inside the project,
// a regular file, of bounded size. Anything else is skipped with one warning line, and the request the
// model receives carries nothing of it. hel runs in this process as the command runs it
// (helpers/conversation.ts), against the simulator, with real files and symlinks; a FIFO, which could
// hang a run, is test/e2e/project-rules.test.ts's.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { MAX_RULES_BYTES } from "../../src/resources/rules.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { expectedSystem, NOT_USED, SECRET, sentSystem, warnings } from "../helpers/rules-runs.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

let outsideDir: string | undefined;
afterAll(async () => {
  if (outsideDir) await rm(outsideDir, { recursive: true, force: true });
});
/** A credentials file outside every project, as ~/.aws/credentials would be. */
async function outsideSecret(): Promise<string> {
  outsideDir ??= await realpath(await mkdtemp(join(tmpdir(), "hel-home-")));
  const file = join(outsideDir, "credentials");
  await writeFile(file, `[default]\n${SECRET}\n`);
  return file;
}

/** One run of hel in `project`. */
async function runIn(project: string) {
  sim = await startSimulator({ script: [{ content: "ok" }] });
  const result = await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: sim.url });
  return { ...result, system: sentSystem(sim) };
}

describe("a rules file that would bring in what is not the project's", () => {
  it("a HEL.md symlinked to a credentials file outside is skipped with one warning; AGENTS.md is used instead", async () => {
    const project = await tempProject();
    const credentials = await outsideSecret();
    await symlink(credentials, join(project, "HEL.md"));
    await writeFile(join(project, "AGENTS.md"), "Rule from AGENTS.md\n");
    const result = await runIn(project);
    expect(result.code).toBe(0);
    expect(result.system).toBe(expectedSystem(project, result.system, { file: "AGENTS.md", text: "Rule from AGENTS.md\n" }));
    expect(warnings(result.stderr)).toEqual([`hel: "HEL.md" leads outside the project directory through a symlink (to ${credentials}), so ${NOT_USED}`]);
  });

  it("a HEL.md symlinked to /dev/zero is skipped without being read", async () => {
    const project = await tempProject();
    await symlink("/dev/zero", join(project, "HEL.md"));
    const result = await runIn(project);
    expect(result.code).toBe(0);
    expect(result.system).toBe(expectedSystem(project, result.system, null));
    expect(warnings(result.stderr)).toEqual([`hel: "HEL.md" leads outside the project directory through a symlink (to /dev/zero), so ${NOT_USED}`]);
  });

  it("a directory named AGENTS.md, and a HEL.md in .hel/, are skipped", async () => {
    const project = await tempProject();
    await mkdir(join(project, ".hel", "sessions", "x"), { recursive: true });
    await writeFile(join(project, ".hel", "sessions", "x", "snapshot.json"), SECRET);
    await symlink(".hel/sessions/x/snapshot.json", join(project, "HEL.md"));
    await mkdir(join(project, "AGENTS.md"));
    const result = await runIn(project);
    expect(result.code).toBe(0);
    expect(result.system).toBe(expectedSystem(project, result.system, null));
    expect(warnings(result.stderr)).toEqual([`hel: "HEL.md" is in .hel/, hel's own state: it is off limits to tools, so ${NOT_USED}`, `hel: AGENTS.md is a directory, not a regular file, so ${NOT_USED}`]);
  });

  it("a HEL.md larger than the bound is skipped; one at the bound is used", async () => {
    const project = await tempProject();
    await writeFile(join(project, "HEL.md"), "x".repeat(MAX_RULES_BYTES + 1));
    const over = await runIn(project);
    expect(over.code).toBe(0);
    expect(over.system).toBe(expectedSystem(project, over.system, null));
    expect(warnings(over.stderr)).toEqual([`hel: HEL.md is larger than 64 KB, so ${NOT_USED}`]);

    const text = `${"y".repeat(MAX_RULES_BYTES - 1)}\n`;
    await writeFile(join(project, "HEL.md"), text);
    const at = await runIn(project);
    expect(at.system).toBe(expectedSystem(project, at.system, { file: "HEL.md", text }));
    expect(warnings(at.stderr)).toEqual([]);
  });
});

describe("a rules file inside the project", () => {
  it("is used through a symlink that stays inside, with no warning", async () => {
    const project = await tempProject();
    await mkdir(join(project, "docs"));
    await writeFile(join(project, "docs", "rules.md"), "Use tabs.\n");
    await symlink("docs/rules.md", join(project, "HEL.md"));
    const result = await runIn(project);
    expect(result.code).toBe(0);
    expect(result.system).toBe(expectedSystem(project, result.system, { file: "HEL.md", text: "Use tabs.\n" }));
    expect(warnings(result.stderr)).toEqual([]);
  });
});

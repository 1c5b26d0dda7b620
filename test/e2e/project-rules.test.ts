// The project's rules file (HEL.md, else AGENTS.md) follows the tools' path rules: inside the project,
// a regular file, of bounded size. Anything else is skipped with one warning line, and the request the
// model receives carries nothing of it. The built CLI against the simulator, with real files, FIFOs and
// symlinks.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import { MAX_RULES_BYTES } from "../../src/resources/rules.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { collect, startHel, type HelResult } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

const SECRET = "aws_secret_access_key = CANARY-0123456789";
const NOT_USED = "it is not used as the project's rules — keep them in a regular file inside the project, up to 64 KB";

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

/** One run of hel in `project`; a run that hangs is killed, so the test fails instead of waiting. */
async function runIn(project: string): Promise<HelResult & { system: string }> {
  sim = await startSimulator({ script: [{ content: "ok" }] });
  const child = startHel({ args: ["-C", project, "hi"], baseUrl: sim.url });
  const watchdog = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const result = await collect(child).finally(() => clearTimeout(watchdog));
  const bodies = sim.requests.map((r) => r.body as ChatRequest);
  expect(result.signal).toBeNull();
  expect(bodies).toHaveLength(1);
  expect(JSON.stringify(bodies)).not.toContain("CANARY");
  return { ...result, system: bodies[0]!.messages[0]!.content as string };
}

/** The system prompt hel sends for `project` with these rules, on the date the request carries. */
function expectedSystem(project: string, sent: string, rules: { file: string; text: string } | null): string {
  const date = /Date: (\d{4}-\d{2}-\d{2})/.exec(sent)![1]!;
  return buildSystemPrompt({ projectDir: project, platform: `${process.platform} ${process.arch}`, date, rules: rules ? [rules] : [] });
}

const warnings = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("hel: "));

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

  it("a FIFO HEL.md does not hang hel: it is skipped", async () => {
    const project = await tempProject();
    execFileSync("mkfifo", [join(project, "HEL.md")]);
    const result = await runIn(project);
    expect(result.code).toBe(0);
    expect(result.system).toBe(expectedSystem(project, result.system, null));
    expect(warnings(result.stderr)).toEqual([`hel: HEL.md is a FIFO, not a regular file, so ${NOT_USED}`]);
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

// Skills as hel sends them, run in this process as the command runs it (helpers/conversation.ts)
// against the simulator: the project's (.hel/skills/, .agents/skills/) and the user's are listed in the
// system prompt, byte for byte the same from one run to the next, with the API key masked and a bad
// file skipped with one warning; the model reads a user's skill with read_file through its listed path.
import { mkdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { memoFile } from "../../src/fs/file-memo.js";
import { tempProject } from "../helpers/temp-project.js";

const KEY = "sk-skills-test-secret-0123456789";
let sim: Simulator;
afterEach(async () => sim?.close());

async function skill(root: string, name: string, text: string): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(join(root, name, "SKILL.md"), text);
}

describe("skills", () => {
  it("are listed in the system prompt the same way every run, and a user's skill is read through its listed path", async () => {
    const project = await tempProject();
    const config = await realpath(await tempProject());
    const userSkill = join(config, "hel", "skills", "commit", "SKILL.md");
    await skill(join(project, ".hel", "skills"), "deploy", "---\nname: deploy\ndescription: Ship to staging.\n---\nRun the deploy script.\n");
    await skill(join(project, ".agents", "skills"), "api-docs", `---\nname: api-docs\ndescription: Write API docs (the key ${KEY} is masked).\n---\n`);
    await skill(join(project, ".hel", "skills"), "broken", "---\nname: broken\n---\n");
    await skill(join(config, "hel", "skills"), "commit", "---\nname: commit\ndescription: Write a commit message.\n---\nOne line, then why.\n");
    const env = { XDG_CONFIG_HOME: config, DEEPSEEK_API_KEY: KEY };

    sim = await startSimulator({ script: [{ tool_calls: [{ name: "read_file", arguments: JSON.stringify({ path: userSkill }) }] }, { content: "read it" }] });
    const first = await runHelInProcess({ args: ["-C", project, "commit this"], baseUrl: sim.url, env });
    expect(first.code).toBe(0);
    expect(first.stderr.split("\n").filter((l) => l.startsWith("hel: "))).toEqual([
      'hel: the skill .hel/skills/broken/SKILL.md has a bad "description" in its front matter: it must be given, as text, so it is skipped — fix it or remove the folder',
    ]);
    const [asked, answered] = sim.requests.map((r) => r.body as ChatRequest);
    const system = asked!.messages[0]!.content as string;
    expect(system).toContain(
      [
        "",
        "# Skills",
        "A skill is a folder of instructions for one kind of task. When a task fits a skill's description, read its SKILL.md with read_file at the path listed before you start, and follow it; read_file reads the other files in its folder too.",
        "- api-docs: Write API docs (the key [REDACTED] is masked). (.agents/skills/api-docs/SKILL.md)",
        `- commit: Write a commit message. (${userSkill})`,
        "- deploy: Ship to staging. (.hel/skills/deploy/SKILL.md)",
      ].join("\n"),
    );
    expect(JSON.stringify(sim.requests.map((r) => r.body))).not.toContain(KEY);
    const result = answered!.messages.find((m) => m.role === "tool")!.content as string;
    expect(result.replace(/^\[#2\] /, "").replace(/^ *\d+\t/gm, "")).toBe("---\nname: commit\ndescription: Write a commit message.\n---\nOne line, then why.");

    await sim.close();
    sim = await startSimulator({ policy: "echo" });
    expect((await runHelInProcess({ args: ["-C", project, "again"], baseUrl: sim.url, env })).code).toBe(0);
    expect((sim.requests[0]!.body as ChatRequest).messages[0]!.content).toBe(system);
  });

  it("a later start lists them from its memo byte for byte as a start that read them did, and reads an edited one again", async () => {
    const project = await tempProject();
    const env = { XDG_CONFIG_HOME: join(await tempProject(), "no-config"), DEEPSEEK_API_KEY: KEY };
    for (let i = 0; i < 30; i++) await skill(join(project, ".hel", "skills"), `task-${String(i).padStart(2, "0")}`, `---\nname: task-${String(i).padStart(2, "0")}\ndescription: How to do task ${i}.\n---\n`);
    // A file changed within the last moments is read again by every start (fs/file-memo.ts): these are let settle first.
    await sleep(2100);
    sim = await startSimulator({ policy: "echo" });
    const systemOf = async (instruction: string) => {
      const before = sim.requests.length;
      expect((await runHelInProcess({ args: ["-C", project, instruction], baseUrl: sim.url, env })).code).toBe(0);
      return (sim.requests[before]!.body as ChatRequest).messages[0]!.content as string;
    };
    const read = await systemOf("one");
    expect(read).toContain("- task-00: How to do task 0. (.hel/skills/task-00/SKILL.md)");
    const memo = memoFile(project, "skills");
    expect(await readFile(memo, "utf8")).toContain("How to do task 29.");
    const kept = await stat(memo);
    expect(await systemOf("two")).toBe(read);
    // Nothing changed, so nothing was written.
    expect((await stat(memo)).mtimeMs).toBe(kept.mtimeMs);
    await writeFile(join(project, ".hel", "skills", "task-00", "SKILL.md"), "---\nname: task-00\ndescription: How to do task 9.\n---\n");
    expect(await systemOf("three")).toBe(read.replace("How to do task 0.", "How to do task 9."));
  });
});

// loadResources: every family of the user's and the project's own files in one bundle, with what could
// not be used as diagnostics ({file, problem}) in the order the files were read, the key masked.
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadResources } from "../../src/resources/resources.js";
import { tempProject } from "../helpers/temp-project.js";

const KEY = "sk-secret-0123456789";

it("loads rules, skills, agents and command files, passes the trusted hooks and servers on, and returns each problem as a diagnostic", async () => {
  const project = await realpath(await tempProject());
  const user = join(project, "user-hel");
  const write = async (file: string, text: string) => {
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, text);
  };
  await mkdir(join(project, "AGENTS.md"));
  await write(join(project, "sub", "HEL.md"), `Use tabs. ${KEY}\n`);
  await write(join(project, ".hel", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Ship it.\n---\n");
  await write(join(project, ".hel", "skills", "misnamed", "SKILL.md"), "---\nname: other\ndescription: x\n---\n");
  await write(join(user, "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: The user's, not read.\n---\n");
  await write(join(project, ".hel", "agents", "review.md"), "---\ndescription: Reviews\naccess: full\n---\nLook closely.\n");
  await write(join(user, "agents", "review.md"), "---\ndescription: The user's, not taken\n---\n");
  await write(join(user, "agents", `${KEY}.md`), "---\nmode: full\n---\n");
  await write(join(project, ".hel", "commands", "fix.md"), "Fix $ARGUMENTS.\n");
  await write(join(user, "commands", "help.md"), "Not a command: hel has /help.\n");
  const hooks = { Stop: [{ command: "echo done" }] };
  const servers = { docs: { type: "http" as const, url: "https://example.com/mcp" } };
  const loaded = await loadResources({ projectDir: project, here: "sub", userDir: user, secrets: [KEY], access: "edit", reservedCommand: (name) => name === "help", hooks, servers });
  expect(loaded.rules).toEqual([{ file: "sub/HEL.md", text: "Use tabs. [REDACTED]\n" }]);
  expect(loaded.skills.map((s) => [s.name, s.description, s.path])).toEqual([["deploy", "Ship it.", ".hel/skills/deploy/SKILL.md"]]);
  expect(loaded.agents.map((a) => [a.name, a.description, a.access])).toEqual([["review", "Reviews", "edit"]]);
  expect(loaded.commands).toEqual([{ name: "fix", body: "Fix $ARGUMENTS.", shown: ".hel/commands/fix.md" }]);
  expect(loaded.hooks).toBe(hooks);
  expect(loaded.servers).toBe(servers);
  const userAgent = join(user, "agents", "[REDACTED].md");
  expect(loaded.diagnostics).toEqual([
    { file: "AGENTS.md", problem: expect.stringMatching(/^AGENTS\.md is a directory, not a regular file, so it is not used as the project's rules/) },
    { file: ".hel/skills/misnamed/SKILL.md", problem: expect.stringContaining('the skill .hel/skills/misnamed/SKILL.md is named "other"') },
    { file: join(project, ".hel", "agents", "review.md"), problem: expect.stringContaining("asks for access full, wider than this session's edit") },
    { file: userAgent, problem: expect.stringContaining(`the agent file ${userAgent} is skipped`) },
    { file: join(user, "commands", "help.md"), problem: `the command file ${join(user, "commands", "help.md")} would hide hel's own /help, so it is skipped — rename it` },
  ]);
});

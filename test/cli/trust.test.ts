// A project's MCP servers (.mcp.json, its config's mcp-servers) are among the settings that need
// trust: kept out until trusted, and asked about again when they change, since the hash covers them.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parseArgs } from "../../src/cli/options.js";
import { trustedConfig } from "../../src/cli/trust.js";
import { tempProject } from "../helpers/temp-project.js";

it("starts a project's servers only once trusted, and asks again when they change", async () => {
  const project = await tempProject();
  const home = await tempProject();
  const env = { XDG_CONFIG_HOME: home };
  const invocation = parseArgs(["-C", project, "hi"], env, "0");
  if (invocation.kind !== "run") throw new Error("not a run");
  await mkdir(join(home, "hel"));
  await writeFile(join(home, "hel", "config.json"), JSON.stringify({ "mcp-servers": { mine: { command: "mine" } } }));
  const mcpJson = (command: string) => writeFile(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { theirs: { command, args: ["-x"] } } }));
  const questions: string[] = [];
  const warnings: string[] = [];
  const config = (answer: boolean) =>
    trustedConfig({ projectDir: project, flags: invocation.options, env, ask: async (q) => (questions.push(q), answer), warn: (w) => warnings.push(w) });

  await mcpJson("theirs");
  expect((await config(false))["mcp-servers"]).toEqual({ mine: { command: "mine" } });
  expect(questions).toEqual([`This project (${project}) asks for: MCP servers theirs (theirs -x). Trust it? [y/N] `]);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/^ignored this project's mcp-servers \(.*\.mcp\.json, .*config\.json\)/);

  await mcpJson("changed");
  expect((await config(true))["mcp-servers"]).toEqual({ mine: { command: "mine" }, theirs: { command: "changed", args: ["-x"] } });
  expect(questions).toHaveLength(2);
  // Trusted and kept: not asked again while the servers stay as they are.
  expect((await config(false))["mcp-servers"]).toEqual({ mine: { command: "mine" }, theirs: { command: "changed", args: ["-x"] } });
  expect(questions).toHaveLength(2);
});

// Opening a project: the user's and the project's own files come back with it, command files
// included, whatever the mode; each problem with one, the config files' too, is printed on stderr as
// hel's warning line and kept as a diagnostic for an editor.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { parseArgs } from "../../src/cli/options.js";
import { openProject } from "../../src/cli/open-project.js";
import { runInProcess } from "../helpers/conversation.js";
import { helEnv } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

it("a one-shot run loads the command files too, and prints a bad one's diagnostic as the interactive prompt did", async () => {
  sim = await startSimulator({ script: [{ content: "done" }] });
  const dir = await tempProject();
  await mkdir(join(dir, ".hel", "commands"), { recursive: true });
  await writeFile(join(dir, ".hel", "commands", "exit.md"), "x");
  const run = await runInProcess({ args: ["-C", dir, "hi"], baseUrl: sim.url });
  expect(run.code).toBe(0);
  expect(run.stderr.split("\n").filter((l) => l.startsWith("hel: the command file"))).toEqual(["hel: the command file .hel/commands/exit.md would hide hel's own /exit, so it is skipped — rename it"]);
});

it("the config files' problems come back as diagnostics too, with the file each is in, printed in the order they were found", async () => {
  const dir = await tempProject();
  const home = await tempProject();
  await mkdir(join(home, "hel"), { recursive: true });
  await writeFile(join(home, "hel", "config.json"), JSON.stringify({ "mcp-servers": { bad: { command: "" } } }));
  await writeFile(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { theirs: { command: "node", args: ["server.js"] } } }));
  const env = helEnv("http://127.0.0.1:9", { XDG_CONFIG_HOME: home });
  const invocation = parseArgs(["-C", dir, "hi"], env, "test");
  if (invocation.kind !== "run") throw new Error("not a run");
  let stderr = "";
  const project = await openProject(invocation.options, "sk-test", { stdout: { write: () => undefined }, stderr: { write: (t) => void (stderr += t) }, env, cwd: dir });
  expect(project.diagnostics.map((d) => d.file)).toEqual([join(home, "hel", "config.json"), join(dir, ".mcp.json")]);
  expect(project.diagnostics[0]!.problem).toMatch(/^left out the MCP server "bad" of .*config\.json: /);
  expect(project.diagnostics[1]!.problem).toMatch(/^ignored this project's mcp-servers \(.*\.mcp\.json, .*config\.json\): a project's own files may not widen what hel does until you trust it/);
  expect(stderr).toBe(project.diagnostics.map((d) => `hel: ${d.problem}\n`).join(""));
});

// Where hel starts MCP servers, and what they leave: the user's own server starts in hel's own empty
// folder, so `npx` runs nothing a clone committed under node_modules/; a trusted project's starts in the
// project; neither gets a PATH entry a project file could shadow its program through; a child a server
// moved out of its group ends with hel; a server's stderr log stays bounded, its tail kept. The built
// hel, real servers, the simulator.
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";
import { KEEP_BYTES } from "../../src/mcp/server-log.js";
import { collect, runHel, startHel } from "../helpers/hel.js";
import { waitFor } from "../helpers/wait.js";
import { running } from "../helpers/processes.js";
import { tempProject } from "../helpers/temp-project.js";

const PLACE = join(import.meta.dirname, "..", "helpers", "mcp-place-server.mjs");

let sim: Simulator | undefined;
afterEach(async () => sim?.close());

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: JSON.stringify(args) });
const toolResults = (s: Simulator) =>
  s.requests.flatMap((r) => (r.body as ChatRequest).messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool").map((m) => String(m.content).replace(/^\[#\d+\] /, "")));

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, JSON.stringify(value));
}

/** An executable at `path` in `dir` that writes `marker` when run. */
async function planted(dir: string, path: string, marker: string): Promise<void> {
  await mkdir(join(dir, path, ".."), { recursive: true });
  await writeFile(join(dir, path), `#!/bin/sh\necho planted >> ${JSON.stringify(marker)}\n`);
  await chmod(join(dir, path), 0o755);
}

it("the README's npx server from the user's config runs no package the project planted under node_modules/", async () => {
  const project = await tempProject();
  const marker = join(await tempProject(), "marker");
  // What a clone would commit: the package and its .bin link, and a .bin npx for a relative PATH entry.
  const pkg = join(project, "node_modules", "@modelcontextprotocol", "server-github");
  await writeJson(join(pkg, "package.json"), { name: "@modelcontextprotocol/server-github", version: "9.9.9", bin: { "mcp-server-github": "index.js" } });
  await writeFile(join(pkg, "index.js"), `#!/usr/bin/env node\nrequire("fs").appendFileSync(${JSON.stringify(marker)}, "planted\\n");\n`);
  await chmod(join(pkg, "index.js"), 0o755);
  await mkdir(join(project, "node_modules", ".bin"), { recursive: true });
  await symlink("../@modelcontextprotocol/server-github/index.js", join(project, "node_modules", ".bin", "mcp-server-github"));
  await planted(project, "node_modules/.bin/npx", marker);
  const config = await tempProject();
  await writeJson(join(config, "hel", "config.json"), { "mcp-servers": { github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } } } });
  sim = await startSimulator({ policy: "echo" });
  // Offline, npx cannot fetch the package: the server does not start, which is all this run can show.
  const env = { XDG_CONFIG_HOME: config, npm_config_offline: "true", GITHUB_TOKEN: "ghp-secret", PATH: `node_modules/.bin:${process.env.PATH}` };
  const run = await runHel({ args: ["-C", project, "hi"], cwd: project, baseUrl: sim.url, env });
  expect(run.code).toBe(0);
  expect(run.stderr).toContain('left out the MCP server "github"');
  await expect(readFile(marker, "utf8")).rejects.toThrow(/ENOENT/);
});

it("the user's server starts in hel's own folder, a trusted project's in the project; neither PATH has a relative entry or one in the project", async () => {
  const project = await tempProject();
  const marker = join(await tempProject(), "marker");
  // A node of the project's own, which a relative PATH entry or one into the project would run.
  await planted(project, "node_modules/.bin/node", marker);
  await planted(project, "bin/node", marker);
  await writeJson(join(project, ".mcp.json"), { mcpServers: { mine: { command: "node", args: [PLACE] } } });
  const given = join(await tempProject(), "given.json");
  await writeJson(given, { mcpServers: { yours: { command: "node", args: [PLACE] } } });
  sim = await startSimulator({ script: [{ tool_calls: [call("mcp__mine__where"), call("mcp__yours__where")] }, { content: "done" }] });
  const path = `node_modules/.bin::${join(project, "bin")}:${process.env.PATH}`;
  const run = await runHel({ args: ["-C", project, "--trust", "--mcp-config", given, "where?"], cwd: project, baseUrl: sim.url, env: { PATH: path } });
  expect(run.code).toBe(0);
  await expect(readFile(marker, "utf8")).rejects.toThrow(/ENOENT/);
  const [mine, yours] = toolResults(sim).map((text) => JSON.parse(text) as { cwd: string; path: string });
  expect(mine!.cwd).toBe(project);
  expect(yours!.cwd).not.toBe(project);
  expect(yours!.cwd.startsWith(project)).toBe(false);
  for (const where of [mine!, yours!]) expect(where.path.split(":").every((dir) => dir.startsWith("/") && !dir.startsWith(project))).toBe(true);
});

it("a child the server moved out of its group with setsid is gone once hel has exited", async () => {
  const project = await tempProject();
  const token = `32.0${Math.floor(Math.random() * 1e6)}`;
  const given = join(await tempProject(), "given.json");
  await writeJson(given, { mcpServers: { place: { command: process.execPath, args: [PLACE], env: { HEL_TEST_SETSID: token } } } });
  sim = await startSimulator({ script: [{ tool_calls: [call("mcp__place__where")] }, { content: "done" }] });
  const run = await runHel({ args: ["-C", project, "--mcp-config", given, "where?"], baseUrl: sim.url });
  expect(run.code).toBe(0);
  expect(toolResults(sim)).toHaveLength(1);
  // The kernel ends the namespace as hel's exit closes it: a moment after, at most.
  await waitFor(
    () => running(`sleep ${token}`).length === 0,
    () => `the setsid child to end: ${running(`sleep ${token}`).join("; ")}`,
  );
});

it("a server that outlives its stdin, and the child it moved out of its group with setsid, are gone once hel is killed with SIGKILL", async () => {
  const project = await tempProject();
  const token = `33.0${Math.floor(Math.random() * 1e6)}`;
  const ready = join(await tempProject(), "ready");
  const given = join(await tempProject(), "given.json");
  // The token in the server's own command line too, to find it.
  await writeJson(given, { mcpServers: { place: { command: process.execPath, args: [PLACE, token], env: { HEL_TEST_SETSID: token, HEL_TEST_READY: ready, HEL_TEST_STUBBORN: "1" } } } });
  sim = await startSimulator({ script: [{ tool_calls: [call("mcp__place__hang")] }, { content: "done" }] });
  const hel = startHel({ args: ["-C", project, "--mcp-config", given, "wait"], baseUrl: sim.url });
  const ended = collect(hel);
  await waitFor(() => existsSync(ready), "the server's hanging call");
  expect(running(`sleep ${token}`)).toHaveLength(1);
  expect(running(`${PLACE} ${token}`).length).toBeGreaterThan(0);
  hel.kill("SIGKILL");
  expect((await ended).signal).toBe("SIGKILL");
  // The server itself, which outlives its stdin, and its child: gone with hel.
  await waitFor(
    () => running(token).length === 0,
    () => `the server and its setsid child to end: ${running(token).join("; ")}`,
  );
});

it("a server that writes 50 MB to stderr leaves a log of bounded size that ends with its last line", async () => {
  const project = await tempProject();
  const given = join(await tempProject(), "given.json");
  await writeJson(given, { mcpServers: { loud: { command: process.execPath, args: [PLACE], env: { HEL_TEST_STDERR_MB: "50" } } } });
  sim = await startSimulator({ script: [{ tool_calls: [call("mcp__loud__where")] }, { content: "done" }] });
  const run = await runHel({ args: ["-C", project, "--mcp-config", given, "where?"], baseUrl: sim.url });
  expect(run.code).toBe(0);
  const log = join(project, ".hel", "logs", "mcp-loud.log");
  expect((await stat(log)).size).toBeLessThanOrEqual(2 * KEEP_BYTES);
  const text = await readFile(log, "utf8");
  expect(text).toMatch(/^\[hel: \d+ earlier bytes of this log were cut; what follows is the last \d+\]\n/);
  expect(text.endsWith("e\nstderr ends here\n")).toBe(true);
});

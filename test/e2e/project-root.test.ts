// The project is found, not assumed: run from a subfolder, hel works in the nearest folder above with
// `.hel/` or `.git`, reads the rules of every folder from there down, names the current folder in the
// system prompt, and keeps one `.hel/`. Tools' paths stay relative to the root. The built CLI, run
// from real folders, against the simulator.
import { spawn } from "node:child_process";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { findProjectRoot } from "../../src/conversation/project-root.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { HEL, helEnv, runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
const systemOf = (index: number) => (sim.requests[index]!.body as ChatRequest).messages[0]!.content as string;

describe("run from a subfolder", () => {
  it("works at the root with .git: rules root to here, the folder named, paths from the root, one .hel/", async () => {
    const root = await tempProject();
    await mkdir(join(root, ".git"));
    await mkdir(join(root, "pkg", "api"), { recursive: true });
    await writeFile(join(root, "AGENTS.md"), "Root rule.\n");
    await writeFile(join(root, "pkg", "api", "HEL.md"), "API rule.\n");
    await writeFile(join(root, "top.txt"), "at the root\n");
    sim = await startSimulator({ script: [{ tool_calls: [call("read_file", { path: "top.txt" })] }, { content: "read it" }] });

    const first = await runHel({ args: ["look"], cwd: join(root, "pkg", "api"), baseUrl: sim.url });
    expect(first.code).toBe(0);
    const system = systemOf(0);
    expect(system).toContain(`Project directory: ${root}\nCurrent folder: pkg/api (where the user is working; paths stay relative to the project directory)\n`);
    expect(system.endsWith("# Project rules (AGENTS.md)\nRoot rule.\n\n# Project rules (pkg/api/HEL.md)\nAPI rule.")).toBe(true);
    expect((sim.requests[1]!.body as ChatRequest).messages.at(-1)!.content).toBe("[#2]      1\tat the root");
    // The session is the root's, and the hint works from where the user stands.
    const id = /resume with: hel --resume (\S+)\n/.exec(first.stderr)?.[1];
    expect(id).toBeDefined();
    expect(await readdir(join(root, ".hel", "sessions"))).toEqual([id]);
    expect(await readdir(join(root, "pkg", "api"))).toEqual(["HEL.md"]);

    // From the root, -c continues that session; its system prompt names no folder and has only the root's rules.
    sim.push({ content: "same session" });
    const next = await runHel({ args: ["-c", "again"], cwd: root, baseUrl: sim.url });
    expect(next.code).toBe(0);
    expect(next.stderr).toContain(`resume with: hel --resume ${id}\n`);
    expect(systemOf(2)).not.toContain("Current folder");
    expect(systemOf(2).endsWith("# Project rules (AGENTS.md)\nRoot rule.")).toBe(true);
    // `hel sessions ls` from the subfolder lists it.
    const ls = await runHel({ args: ["sessions", "ls", "--json"], cwd: join(root, "pkg") });
    expect((JSON.parse(ls.stdout) as { id: string }[]).map((s) => s.id)).toEqual([id]);
  });

  it("-C names the folder the search starts from; a project's .hel/ marks its root", async () => {
    const root = await tempProject();
    await mkdir(join(root, ".hel"));
    await mkdir(join(root, "src"));
    sim = await startSimulator({ policy: "echo" });
    const result = await runHel({ args: ["-C", join(root, "src"), "hi"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(systemOf(0)).toContain(`Project directory: ${root}\nCurrent folder: src (`);
    expect(await readdir(join(root, ".hel", "sessions"))).toHaveLength(1);
    // Run from elsewhere, the hint names the project.
    expect(result.stderr).toMatch(new RegExp(`resume with: hel --resume \\S+ -C ${root}\\n`));
  });
});

describe("findProjectRoot", () => {
  it("the nearest marker wins; with none, the starting folder; .git may be a file; .hel must be a folder; home stops the search", async () => {
    const top = await tempProject();
    await mkdir(join(top, "a", "b", "c"), { recursive: true });
    expect(await findProjectRoot(join(top, "a", "b"))).toEqual({ root: join(top, "a", "b"), here: "" });
    await writeFile(join(top, "a", ".hel"), "a file, not hel's folder");
    expect((await findProjectRoot(join(top, "a", "b"))).root).toBe(join(top, "a", "b"));
    await writeFile(join(top, ".git"), "gitdir: /elsewhere\n");
    expect(await findProjectRoot(join(top, "a", "b", "c"))).toEqual({ root: top, here: "a/b/c" });
    await mkdir(join(top, "a", "b", ".hel"));
    expect(await findProjectRoot(join(top, "a", "b", "c"))).toEqual({ root: join(top, "a", "b"), here: "c" });
    // A home folder above is not a project root, even with a .git or .hel/ of its own; started in, it is.
    expect(await findProjectRoot(join(top, "a"), top)).toEqual({ root: join(top, "a"), here: "" });
    expect(await findProjectRoot(top, top)).toEqual({ root: top, here: "" });
  });
});

// The sandbox may write the whole project: a project that is the home folder, `/` or a folder holding
// the user's hel config would let a command write the user's config (a hook for every later run) or
// ~/.bashrc. Real hel processes, HOME a temp folder.
describe("never home or /", () => {
  const refusal = /^hel: .* which hel does not take as a project: .* -C names one\)\n$/;

  it("refuses the home folder, /, and a folder holding or inside the hel config: exit 2, one line naming -C, nothing written", async () => {
    const home = await tempProject();
    const env = { HOME: home, XDG_CONFIG_HOME: undefined };
    const inHome = await runHel({ args: ["hi"], cwd: home, env });
    expect(inHome.code).toBe(2);
    expect(inHome.stderr).toMatch(refusal);
    expect(inHome.stderr).toContain(`${home} is your home folder`);
    const root = await runHel({ args: ["-C", "/", "hi"], env });
    expect(root.code).toBe(2);
    expect(root.stderr).toMatch(refusal);
    // A folder holding the home folder holds its shell start-up files, wherever the config is.
    const above = await runHel({ args: ["-C", join(home, ".."), "hi"], env: { HOME: home, XDG_CONFIG_HOME: join(await tempProject(), "cfg") } });
    expect(above.code).toBe(2);
    expect(above.stderr).toMatch(refusal);
    expect(above.stderr).toContain("a folder holding your home folder");
    // ~/.config holds ~/.config/hel; the config folder itself is no project either.
    await mkdir(join(home, ".config", "hel"), { recursive: true });
    for (const dir of [join(home, ".config"), join(home, ".config", "hel")]) {
      const run = await runHel({ args: ["-C", dir, "hi"], env });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(refusal);
    }
    // XDG_CONFIG_HOME inside a folder makes that folder the config's: refused there too.
    const other = await tempProject();
    const xdg = await runHel({ args: ["hi"], cwd: other, env: { HOME: home, XDG_CONFIG_HOME: join(other, "cfg") } });
    expect(xdg.code).toBe(2);
    expect(xdg.stderr).toMatch(refusal);
    // No .hel/ made anywhere (hel's compile cache in ~/.cache is its own).
    expect((await readdir(home)).filter((f) => f !== ".cache")).toEqual([".config"]);
    expect(await readdir(other)).toEqual([]);
  });

  it("a folder under home is a project as before", async () => {
    const home = await tempProject();
    await mkdir(join(home, "work"));
    sim = await startSimulator({ policy: "echo" });
    const run = await runHel({ args: ["hi"], cwd: join(home, "work"), baseUrl: sim.url, env: { HOME: home, XDG_CONFIG_HOME: undefined } });
    expect(run.code).toBe(0);
  });

  it("hel acp refuses the home folder as a session's cwd, in session/new and session/load", async () => {
    const home = await tempProject();
    sim = await startSimulator({ policy: "echo" });
    const child = spawn(process.execPath, [HEL, "acp"], { cwd: home, env: helEnv(sim.url, { HOME: home, XDG_CONFIG_HOME: undefined }), stdio: ["pipe", "pipe", "pipe"] });
    const connection = client({ name: "test-editor" }).connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
    try {
      await connection.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      await expect(connection.agent.request(methods.agent.session.new, { cwd: home, mcpServers: [] })).rejects.toThrow(/which hel does not take as a project/);
      await expect(connection.agent.request(methods.agent.session.load, { cwd: "/", sessionId: "s1", mcpServers: [] })).rejects.toThrow(/which hel does not take as a project/);
      const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: await tempProject(), mcpServers: [] });
      expect(sessionId).toBeTruthy();
    } finally {
      connection.close();
      child.stdin.end();
      await new Promise((done) => child.on("close", done));
    }
    expect((await readdir(home)).filter((f) => f !== ".cache")).toEqual([]);
  });
});

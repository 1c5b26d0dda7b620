// The project is found, not assumed: run from a subfolder, hel works in the nearest folder above with
// `.hel/` or `.git`, reads the rules of every folder from there down, names the current folder in the
// system prompt, and keeps one `.hel/`. Tools' paths stay relative to the root. The built CLI, run
// from real folders, against the simulator.
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { findProjectRoot } from "../../src/cli/project-root.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHel } from "../helpers/hel.js";
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

// `hel -w <name>`: two real hel processes at once, each in its own worktree of one project, each editing
// the same file there; the main tree is untouched until `hel worktrees merge`, which brings both edits
// in; the sessions are kept in the main project's .hel/sessions; `--resume` goes back into the worktree.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHel } from "../helpers/hel.js";
import { sessionIdOf, simulators } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";

const sim = simulators();
const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });
const call = (name: string, args: object) => ({ tool_calls: [{ name, arguments: JSON.stringify(args) }] });

describe("hel -w", () => {
  it("runs two sessions at once, each in its own worktree, whose changes `hel worktrees merge` brings in", async () => {
    const project = await tempProject();
    git(project, "init", "--quiet", "-b", "main");
    await writeFile(join(project, "a.txt"), "first\nmiddle\nlast\n");
    git(project, "add", "-A");
    git(project, "commit", "--quiet", "-m", "one");
    const edit = (from: string, to: string) => [{ faults: [{ kind: "delay" as const, ms: 1500 }], reply: call("search_replace", { path: "a.txt", old_text: from, new_text: to }) }, { content: "done" }];
    const [simA, simB] = await Promise.all([sim({ script: edit("first", "first, by a") }), sim({ script: edit("last", "last, by b") })]);
    const tools = ["--tools", "read_file,search_replace"];
    const [a, b] = await Promise.all([
      runHel({ args: ["-C", project, "-w", "a", ...tools, "edit the first line"], baseUrl: simA.url }),
      runHel({ args: ["-C", project, "--worktree", "b", ...tools, "edit the last line"], baseUrl: simB.url }),
    ]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    expect(a.stderr).toContain("hel: this session works in its worktree .hel/worktrees/a (branch hel/a); `hel worktrees merge a` brings its changes in");
    expect(await readFile(join(project, ".hel/worktrees/a/a.txt"), "utf8")).toBe("first, by a\nmiddle\nlast\n");
    expect(await readFile(join(project, ".hel/worktrees/b/a.txt"), "utf8")).toBe("first\nmiddle\nlast, by b\n");
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("first\nmiddle\nlast\n");
    // The model was told the worktree is its project.
    expect(JSON.stringify((simA.requests[0]!.body as ChatRequest).messages[0])).toContain(join(project, ".hel/worktrees/a"));
    // Both sessions are the main project's.
    const idA = sessionIdOf(a.stderr)!;
    expect((await readdir(join(project, ".hel/sessions"))).sort()).toEqual([idA, sessionIdOf(b.stderr)!].sort());
    expect(existsSync(join(project, ".hel/worktrees/a/.hel/sessions"))).toBe(false);

    // Listed oldest first: the two were made at once, in either order.
    expect((await runHel({ args: ["-C", project, "worktrees", "ls"] })).stdout.split("\n").sort()).toEqual([
      "",
      "a  hel/a  1 file (+1 −1)  a hel -w session's, with unmerged changes",
      "b  hel/b  1 file (+1 −1)  a hel -w session's, with unmerged changes",
    ]);
    expect((await runHel({ args: ["-C", project, "worktrees", "merge", "a"] })).code).toBe(0);
    expect((await runHel({ args: ["-C", project, "worktrees", "merge", "b"] })).code).toBe(0);
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("first, by a\nmiddle\nlast, by b\n");

    // --resume goes back into the session's worktree, which a merge kept for it.
    const again = await sim({ script: [call("read_file", { path: "a.txt" }), { content: "read" }] });
    const resumed = await runHel({ args: ["-C", project, "--resume", idA, ...tools, "read it again"], baseUrl: again.url });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("works in its worktree .hel/worktrees/a");
    const toolResult = (again.requests[1]!.body as ChatRequest).messages.at(-1)!;
    expect(JSON.stringify(toolResult)).toContain("first, by a");
    expect(JSON.stringify(toolResult)).not.toContain("last, by b");

    for (const name of ["a", "b"]) expect((await runHel({ args: ["-C", project, "worktrees", "rm", name] })).code).toBe(0);
    expect(git(project, "for-each-ref", "refs/heads/hel")).toBe("");
    expect(git(project, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
  });
});

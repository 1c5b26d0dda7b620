// find_files on real temporary trees: the same exclusions as grep, newest first, bounded with a count
// of the rest, and the result the model gets for bad input.
import { execFileSync } from "node:child_process";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findFilesTool } from "../../../src/tools/search/tools.js";
import type { FindFilesArgs } from "../../../src/tools/search/args.js";
import { executeToolCall, type ToolResult } from "../../../src/tools/registry.js";
import { PATHS_PER_PAGE } from "../../../src/tools/search/format.js";
import type { Tool, ToolContext } from "../../../src/tools/types.js";
import { FOUND, writeSearchTree } from "../../helpers/search-tree.js";
import { toolProject } from "../../helpers/tools.js";

const find = (ctx: ToolContext, args: FindFilesArgs) => findFilesTool.run(args, ctx);

/** The call run through the registry: parsing, the tool, redaction, error wrapping. */
async function findResult(ctx: ToolContext, args: object): Promise<ToolResult> {
  const call = { id: "call_1", type: "function" as const, function: { name: "find_files", arguments: JSON.stringify(args) } };
  return executeToolCall(call, [findFilesTool as Tool], ctx);
}
const findCall = async (ctx: ToolContext, args: object): Promise<string> => (await findResult(ctx, args)).content;
const findDetails = async (ctx: ToolContext, args: object) => (await findResult(ctx, args)).details;

/** Gives the files modification times one second apart, in the order given (the last is the newest). */
async function ageInOrder(dir: string, rels: string[]): Promise<void> {
  const base = Date.UTC(2026, 0, 1) / 1000;
  for (const [i, rel] of rels.entries()) await utimes(path.join(dir, rel), base + i, base + i);
}

describe("find_files", () => {
  it("lists matching files newest first, skipping what grep skips (ignored, .git, .hel, node_modules, symlinks)", async () => {
    const { ctx, dir, outside } = await toolProject();
    await writeSearchTree(dir, outside);
    const all = [...FOUND, ".gitignore", "bin.dat", "sub/.gitignore"];
    await ageInOrder(dir, all);
    expect(await find(ctx, { pattern: "**" })).toBe([...all].reverse().join("\n") + "\n[11 files, newest first]");
    expect(await find(ctx, { pattern: "*.ts" })).toBe("src/deep/c.ts\nsrc/b.ts\nsrc/a.ts\n[3 files, newest first]");
    expect(await find(ctx, { pattern: "**/*.ts", path: "src" })).toBe("src/deep/c.ts\nsrc/b.ts\nsrc/a.ts\n[3 files, newest first]");
    expect(await find(ctx, { pattern: "src/*.ts" })).toBe("src/b.ts\nsrc/a.ts\n[2 files, newest first]");
    expect(await find(ctx, { pattern: "*.js", path: "node_modules" })).toBe("node_modules/pkg/index.js\n[1 file, newest first]");
  });

  it("leaves out exactly the files git ignores, nested .gitignore files and negations included", async () => {
    const { ctx, dir } = await toolProject();
    const files: Record<string, string> = {
      ".gitignore": "*.log\n!important.log\n/build\ndocs/**/*.tmp\ntmp/\nfoo/*\n!foo/keep\ncache/\n\\#hash\n",
      "a.log": "",
      "important.log": "",
      "sub/important.log": "",
      "sub/b.log": "",
      "build/x.js": "",
      "sub/build/y.js": "",
      "docs/a/b/c.tmp": "",
      "docs/a/b/c.md": "",
      "tmp/t.txt": "",
      "sub/tmp/t.txt": "",
      "foo/drop": "",
      "foo/keep": "",
      cache: "a file, not a directory",
      "sub/cache/z": "",
      "#hash": "",
      "pkg/.gitignore": "*.gen.ts\n!special.gen.ts\n/local\n",
      "pkg/a.gen.ts": "",
      "pkg/special.gen.ts": "",
      "pkg/local/l.txt": "",
      "pkg/deep/local/l.txt": "",
      "pkg/deep/x.gen.ts": "",
      "Upper.TXT": "",
    };
    for (const [rel, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await writeFile(path.join(dir, rel), content);
    }
    const git = (args: string[]) => execFileSync("git", ["-c", "core.excludesFile=/dev/null", ...args], { cwd: dir, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } });
    git(["init", "-q"]);
    const kept = git(["ls-files", "--others", "--exclude-standard"]).trim().split("\n").sort();
    expect(kept).toContain("pkg/deep/local/l.txt");
    const listed = (await find(ctx, { pattern: "**" })).split("\n").slice(0, -1).sort();
    expect(listed).toEqual(kept);
  });

  it("orders files with the same modification time by path", async () => {
    const { ctx, dir } = await toolProject();
    const same = new Date(Date.UTC(2026, 0, 1));
    for (const name of ["c.txt", "a.txt", "b.txt"]) {
      await writeFile(path.join(dir, name), "x");
      await utimes(path.join(dir, name), same, same);
    }
    await writeFile(path.join(dir, "z.txt"), "newest");
    expect(await find(ctx, { pattern: "*.txt" })).toBe("z.txt\na.txt\nb.txt\nc.txt\n[4 files, newest first]");
  });

  it("shows the newest PATHS_PER_PAGE and counts the rest", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, "many"));
    const names = Array.from({ length: PATHS_PER_PAGE + 57 }, (_, i) => `many/f${i}.txt`);
    for (const name of names) await writeFile(path.join(dir, name), "x");
    // Newest are neither the first nor the last in the walk's order.
    const shuffled = names
      .map((n, i) => ({ n, k: (i * 7919) % names.length }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.n);
    await ageInOrder(dir, shuffled);
    const rows = (await find(ctx, { pattern: "*.txt" })).split("\n");
    expect(rows.pop()).toBe(`[${PATHS_PER_PAGE} of ${names.length} files shown, newest first; narrow the pattern or path to see the others]`);
    expect(rows).toEqual(shuffled.slice(-PATHS_PER_PAGE).reverse());
    // Beside the text, the counts for readers: every path matching, those listed, and that some were not.
    expect(await findDetails(ctx, { pattern: "*.txt" })).toEqual({ kind: "search", matches: names.length, unit: "file", files: PATHS_PER_PAGE, more: true });
    expect(await findDetails(ctx, { pattern: "f1.txt" })).toEqual({ kind: "search", matches: 1, unit: "file", files: 1, more: false });
    expect(await findDetails(ctx, { pattern: "*.rs" })).toEqual({ kind: "search", matches: 0, unit: "file", files: 0, more: false });
  });

  it("answers a glob that matches nothing, a path outside the project or into .hel, and a missing pattern", async () => {
    const { ctx, dir, outside } = await toolProject();
    await writeSearchTree(dir, outside);
    expect(await findCall(ctx, { pattern: "*.rs" })).toBe(
      'No file in the project matches the glob "*.rs" (11 files looked at). A glob without "/" matches file names ("*.ts"); one with "/" matches paths ("src/**/*.ts").',
    );
    expect(await findCall(ctx, { pattern: "*", path: "../outside" })).toMatch(/^Error: "\.\.\/outside" is outside the project directory/);
    expect(await findCall(ctx, { pattern: "*", path: "link-dir" })).toMatch(/^Error: "link-dir" leads outside the project directory through a symlink/);
    expect(await findCall(ctx, { pattern: "*", path: ".hel/sessions" })).toMatch(/^Error: "\.hel\/sessions" is in \.hel\/, hel's own state/);
    expect(await findCall(ctx, { pattern: "  " })).toBe('Error: the glob "  " is empty: give one such as "*.ts" or "src/**/*.test.ts"');
    expect(await findCall(ctx, {})).toMatch(/^Error: invalid arguments for find_files:\n- pattern: /);
  });
});

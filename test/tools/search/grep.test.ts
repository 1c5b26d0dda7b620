// grep on real temporary trees: what it skips, what its pages and cursors hold, and the result the model
// gets for each kind of bad input.
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_SHOWN_CHARS, SCAN_BUFFER_BYTES } from "../../../src/tools/search/file-matches.js";
import { grepTool } from "../../../src/tools/search/tools.js";
import type { GrepArgs } from "../../../src/tools/search/args.js";
import { executeToolCall, type ToolResult } from "../../../src/tools/registry.js";
import { PATHS_PER_PAGE } from "../../../src/tools/search/format.js";
import type { Tool, ToolContext } from "../../../src/tools/types.js";
import { FOUND, TREE, writeSearchTree } from "../../helpers/search-tree.js";
import { toolProject, withPolicy } from "../../helpers/tools.js";

const grep = (ctx: ToolContext, args: GrepArgs) => grepTool.run(args, ctx);

/** The call run through the registry: parsing, the tool, redaction, error wrapping. */
async function grepResult(ctx: ToolContext, args: object): Promise<ToolResult> {
  const call = { id: "call_1", type: "function" as const, function: { name: "grep", arguments: JSON.stringify(args) } };
  return executeToolCall(call, [grepTool as Tool], ctx);
}
/** The result the model gets. */
const grepCall = async (ctx: ToolContext, args: object): Promise<string> => (await grepResult(ctx, args)).content;
/** The details the registry hands on beside it, for readers. */
const grepDetails = async (ctx: ToolContext, args: object) => (await grepResult(ctx, args)).details;

interface Page {
  rows: string[];
  tally: string;
  cursor: string | undefined;
}

function parsePage(result: string): Page {
  const rows = result.split("\n");
  const tally = rows.pop()!;
  expect(tally).toMatch(/^\[.*\]$/);
  return { rows, tally, cursor: /\{"cursor":"([^"]+)"\}\]$/.exec(tally)?.[1] };
}

/** Every page of a search, following the cursors to the end. */
async function allPages(ctx: ToolContext, args: GrepArgs): Promise<Page[]> {
  const pages = [parsePage(await grep(ctx, args))];
  for (let cursor = pages[0]!.cursor; cursor !== undefined; cursor = pages[pages.length - 1]!.cursor) {
    pages.push(parsePage(await grep(ctx, { cursor })));
  }
  return pages;
}

const row = (rel: string): string =>
  `${rel}:${rel === "src/b.ts" ? 2 : 1}: ${String(TREE[rel])
    .split("\n")
    .find((l) => l.includes("needle"))}`;

describe("grep: what is searched", () => {
  it("skips .gitignore'd files (nested files too, as git does), .git, .hel, node_modules, binary files and symlinks", async () => {
    const { ctx, dir, outside } = await toolProject();
    await writeSearchTree(dir, outside);
    expect(await grep(ctx, { pattern: "needle" })).toBe([...FOUND.map(row), "[8 matches in 8 files]"].join("\n"));
  });

  it("searches a path the walk would skip when the model points into it, and nothing else", async () => {
    const { ctx, dir, outside } = await toolProject();
    await writeSearchTree(dir, outside);
    expect(await grep(ctx, { pattern: "needle", path: "node_modules" })).toBe("node_modules/pkg/index.js:1: needle module\n[1 match in 1 file]");
    expect(await grep(ctx, { pattern: "needle", path: "build" })).toBe("build/out.js:1: needle built\n[1 match in 1 file]");
    expect(await grep(ctx, { pattern: "needle", path: "sub/node_modules/pkg/index.js" })).toBe("sub/node_modules/pkg/index.js:1: needle nested module\n[1 match in 1 file]");
    expect(await grep(ctx, { pattern: "needle", path: "app.log" })).toBe("app.log:1: needle in log\n[1 match in 1 file]");
    expect(await grep(ctx, { pattern: "needle", path: "src" })).toBe(["src/a.ts", "src/b.ts", "src/deep/c.ts"].map(row).join("\n") + "\n[3 matches in 3 files]");
    // Below the project root, the root's .gitignore still applies (sub/other.log), as does sub's own.
    expect(await grep(ctx, { pattern: "needle", path: "sub" })).toBe(["sub/keep.log", "sub/ok.txt", "sub/secret.txt"].map(row).join("\n") + "\n[3 matches in 3 files]");
  });

  it("refuses paths outside the project, through a symlink, or into .hel, with the read_file rules", async () => {
    const { ctx, dir, outside } = await toolProject();
    await writeSearchTree(dir, outside);
    expect(await grepCall(ctx, { pattern: "needle", path: "../outside" })).toMatch(/^Error: "\.\.\/outside" is outside the project directory/);
    expect(await grepCall(ctx, { pattern: "needle", path: "link-dir" })).toMatch(/^Error: "link-dir" leads outside the project directory through a symlink/);
    expect(await grepCall(ctx, { pattern: "needle", path: ".hel" })).toMatch(/^Error: "\.hel" is in \.hel\/, hel's own state: it is off limits to tools/);
    expect(await grepCall(ctx, { pattern: "needle", path: "nope/x" })).toBe('Error: nope/x does not exist: search without path (the whole project), or see what is there with read_file {"path":"nope"}');
  });

  it("filters files by glob: a name anywhere, or a path below the searched directory or the project", async () => {
    const { ctx, dir, outside } = await toolProject();
    await writeSearchTree(dir, outside);
    const ts = ["src/a.ts", "src/b.ts", "src/deep/c.ts"].map(row).join("\n") + "\n[3 matches in 3 files]";
    expect(await grep(ctx, { pattern: "needle", glob: "*.ts" })).toBe(ts);
    expect(await grep(ctx, { pattern: "needle", glob: "src/**/*.ts" })).toBe(ts);
    expect(await grep(ctx, { pattern: "needle", path: "src", glob: "src/**/*.ts" })).toBe(ts);
    expect(await grep(ctx, { pattern: "needle", path: "src", glob: "deep/*" })).toBe(`${row("src/deep/c.ts")}\n[1 match in 1 file]`);
    expect(await grep(ctx, { pattern: "needle", glob: "*.yml" })).toBe(`${row(".github/workflows/ci.yml")}\n[1 match in 1 file]`);
  });

  it("lists matching files with files_only, and matches case-insensitively with ignore_case", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "a.txt"), "Needle\nneedle\nNEEDLE\n");
    await writeFile(path.join(dir, "b.txt"), "NEEDLE\n");
    await writeFile(path.join(dir, "c.txt"), "hay\n");
    expect(await grep(ctx, { pattern: "needle", files_only: true })).toBe("a.txt\n[1 matching file]");
    expect(await grep(ctx, { pattern: "needle", files_only: true, ignore_case: true })).toBe("a.txt\nb.txt\n[2 matching files]");
    expect(await grep(ctx, { pattern: "^needle$", ignore_case: true })).toBe("a.txt:1: Needle\na.txt:2: needle\na.txt:3: NEEDLE\nb.txt:1: NEEDLE\n[4 matches in 2 files]");
  });
});

describe("grep: matching lines", () => {
  it("matches per line like a naive line-by-line search, across the reads of a file larger than the buffer", async () => {
    const { ctx, dir } = await toolProject();
    // Lines of every length, multi-byte characters, CRLF and LF, no newline at the end; what the patterns
    // look for is rare enough that paging through every match stays quick.
    let seed = 7;
    const random = (n: number) => {
      // mulberry32: a seeded generator whose consecutive draws are independent enough for word runs
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
    };
    const common = ["hay", "é", "😀", "x", "  ", "bald", "ne", "dl"];
    const rare = ["needle", "le", "NEEDLE", "needles"];
    const word = () => (random(1000) === 0 ? rare[random(rare.length)] : common[random(common.length)]);
    const lines: string[] = [];
    let size = 0;
    while (size < 3 * SCAN_BUFFER_BYTES) {
      const line = Array.from({ length: random(40) }, word).join(" ") + (random(5) === 0 ? "\r" : "");
      lines.push(line);
      size += Buffer.byteLength(line) + 1;
    }
    await writeFile(path.join(dir, "big.txt"), lines.join("\n"));
    // Patterns that start with plain text are first looked for as bytes; the others are not.
    for (const pattern of ["needle", "^needle", "needles?\\b", "le\\s*$", "😀 é 😀 é", "^$"]) {
      const re = new RegExp(pattern, "u");
      const expected = lines.flatMap((line, i) => (re.test(line.replace(/\r$/, "")) ? [`big.txt:${i + 1}: ${line.replace(/\r$/, "")}`] : []));
      const pages = await allPages(ctx, { pattern });
      expect(pages.flatMap((p) => p.rows)).toEqual(expected);
      if (pattern === "needle") expect(pages.length).toBeGreaterThan(3);
    }
  });

  it("does not match across lines, even with a pattern that can match a newline", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "a.txt"), "foo\nbar\nfoo bar\n");
    expect(await grep(ctx, { pattern: "foo\\s+bar" })).toBe("a.txt:3: foo bar\n[1 match in 1 file]");
    expect(await grep(ctx, { pattern: "o[^x]b" })).toBe("a.txt:3: foo bar\n[1 match in 1 file]");
  });

  it("cuts a long line around its match, and reports a line longer than the buffer once, with the right line numbers after it", async () => {
    const { ctx, dir } = await toolProject();
    const long = "x".repeat(2 * SCAN_BUFFER_BYTES + 1000);
    await writeFile(path.join(dir, "a.txt"), `${long}needle${long}needle\nneedle two\n${"y".repeat(500)}needle${"y".repeat(500)}\n`);
    const [first, second, third, tally] = (await grep(ctx, { pattern: "needle" })).split("\n");
    expect(first).toBe(`a.txt:1: …${"x".repeat(60)}needle${"x".repeat(MAX_SHOWN_CHARS - 66)}…`);
    expect(second).toBe("a.txt:2: needle two");
    expect(third).toBe(`a.txt:3: …${"y".repeat(60)}needle${"y".repeat(MAX_SHOWN_CHARS - 66)}…`);
    expect(tally).toBe("[3 matches in 1 file]");
  });

  it("neither shows a secret nor finds one", async () => {
    const { ctx, dir } = await toolProject();
    const key = "sk-live-0123456789abcdef";
    await writeFile(path.join(dir, ".env"), `DEEPSEEK_API_KEY=${key}\nOTHER=1\n`);
    const withKey = withPolicy(ctx, { secrets: [key] });
    expect(await grep(withKey, { pattern: "API_KEY" })).toBe(".env:1: DEEPSEEK_API_KEY=[REDACTED]\n[1 match in 1 file]");
    expect(await grep(withKey, { pattern: "sk-live-0" })).toBe("No matches for /sk-live-0/ in the project (1 file searched).");
  });

  it("says what it searched when nothing matches, and when the glob left nothing to search", async () => {
    const { ctx, dir, outside } = await toolProject();
    await writeSearchTree(dir, outside);
    expect(await grep(ctx, { pattern: "haystack" })).toBe("No matches for /haystack/ in the project (10 files searched; 1 binary file skipped).");
    expect(await grep(ctx, { pattern: "haystack", glob: "*.ts", ignore_case: true })).toBe('No matches for /haystack/i in the project (3 files matching "*.ts" searched).');
    expect(await grep(ctx, { pattern: "needle", path: "src", glob: "*.rs" })).toBe(
      'No file in src matches the glob "*.rs" (3 files looked at), so nothing was searched. A glob without "/" matches file names ("*.ts"); one with "/" matches paths ("src/**/*.ts").',
    );
  });
});

describe("grep: pages and cursors", () => {
  async function manyMatches(dir: string): Promise<string[]> {
    const expected: string[] = [];
    for (const name of ["f1.txt", "f2.txt", "f3.txt"]) {
      await mkdir(path.join(dir, "p"), { recursive: true });
      await writeFile(path.join(dir, "p", name), Array.from({ length: 150 }, (_, i) => `hit ${i + 1}\nmiss\n`).join(""));
      for (let i = 0; i < 150; i++) expected.push(`p/${name}:${2 * i + 1}: hit ${i + 1}`);
    }
    return expected;
  }

  it("pages through many matches: each page bounded, the pages together exactly the matches, in order", async () => {
    const { ctx, dir } = await toolProject();
    const expected = await manyMatches(dir);
    const pages = await allPages(ctx, { pattern: "^hit" });
    expect(pages.map((p) => p.rows.length)).toEqual([100, 100, 100, 100, 50]);
    expect(pages.flatMap((p) => p.rows)).toEqual(expected);
    expect(pages[0]!.tally).toMatch(/^\[100 matches in 1 file shown; more follow: continue with grep \{"cursor":"grep1\.[\w-]+"\}\]$/);
    expect(pages[1]!.tally).toMatch(/^\[100 matches in 2 files shown; more follow/);
    expect(pages[4]!.tally).toBe("[50 matches in 1 file]");
    // Beside each page's text, its counts for readers (the terminal's line, --json-events).
    expect(await grepDetails(ctx, { pattern: "^hit" })).toEqual({ kind: "search", matches: 100, unit: "line", files: 1, more: true });
    expect(await grepDetails(ctx, { cursor: pages[0]!.cursor })).toEqual({ kind: "search", matches: 100, unit: "line", files: 2, more: true });
    expect(await grepDetails(ctx, { cursor: pages[3]!.cursor })).toEqual({ kind: "search", matches: 50, unit: "line", files: 1, more: false });
    expect(await grepDetails(ctx, { pattern: "^nothing" })).toEqual({ kind: "search", matches: 0, unit: "line", files: 0, more: false });
  });

  it("pages through files_only lists", async () => {
    const { ctx, dir } = await toolProject();
    const names = Array.from({ length: 450 }, (_, i) => `f${String(i).padStart(3, "0")}.txt`);
    for (const name of names) await writeFile(path.join(dir, name), "hit\n");
    const pages = await allPages(ctx, { pattern: "hit", files_only: true });
    expect(pages.map((p) => p.rows.length)).toEqual([PATHS_PER_PAGE, PATHS_PER_PAGE, PATHS_PER_PAGE, PATHS_PER_PAGE, 50]);
    expect(pages.flatMap((p) => p.rows)).toEqual(names);
    expect(pages[4]!.tally).toBe("[50 matching files]");
    expect(await grepDetails(ctx, { cursor: pages[3]!.cursor })).toEqual({ kind: "search", matches: 50, unit: "file", files: 50, more: false });
  });

  it("continues exactly where it stopped when other files changed, and refuses when the file it continues in changed", async () => {
    const { ctx, dir } = await toolProject();
    const expected = await manyMatches(dir);
    const first = parsePage(await grep(ctx, { pattern: "^hit" }));
    // Files before the cursor's position, new or changed, do not shift it.
    await writeFile(path.join(dir, "p", "a-new.txt"), "hit new\n");
    await writeFile(path.join(dir, "p", "f3.txt"), "hit 1\n");
    const second = parsePage(await grep(ctx, { cursor: first.cursor! }));
    expect(second.rows).toEqual(expected.slice(100, 200));

    await appendFile(path.join(dir, "p", "f2.txt"), "hit more\n");
    expect(await grepCall(ctx, { cursor: second.cursor! })).toBe(
      'Error: this cursor no longer applies: p/f2.txt, where it continues, changed since it was made, so its line numbers may have moved. Search again from the start: grep {"pattern":"^hit"}',
    );
  });

  it("is a search of its own: the same arguments may come with it, others are refused, and a made-up one is refused", async () => {
    const { ctx, dir } = await toolProject();
    await manyMatches(dir);
    const first = parsePage(await grep(ctx, { pattern: "^hit", path: "p" }));
    expect(parsePage(await grep(ctx, { cursor: first.cursor!, pattern: "^hit" })).rows[0]).toBe("p/f1.txt:201: hit 101");
    expect(await grepCall(ctx, { cursor: first.cursor!, pattern: "miss" })).toBe(
      'Error: this cursor continues the search grep {"pattern":"^hit","path":"p"}: send the cursor alone to continue it, or start a new search without cursor',
    );
    expect(await grepCall(ctx, { cursor: "c_123" })).toBe('Error: "c_123" is not a cursor grep gave: send the cursor exactly as the last grep result wrote it, or search again with pattern');
  });
});

describe("grep: cancellation", () => {
  // The search runs in a thread of its own, which may finish a small tree before the main thread's next
  // turn: so the call is cancelled as soon as it began. test/e2e/bounded-work.test.ts cancels one mid-way.
  it("stops when the call is cancelled (Ctrl-C)", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, "d"));
    for (let i = 0; i < 600; i++) await writeFile(path.join(dir, "d", `f${i}.txt`), "hit\n");
    const controller = new AbortController();
    const search = grep({ ...ctx, signal: controller.signal }, { pattern: "hit" });
    controller.abort();
    await expect(search).rejects.toThrow(/aborted/);
  });
});

describe("grep: bad input", () => {
  it("answers an invalid regular expression, a missing pattern and an empty one with what to do", async () => {
    const { ctx } = await toolProject();
    expect(await grepCall(ctx, { pattern: "foo(" })).toBe(
      "Error: the pattern is not a valid JavaScript regular expression (Unterminated group). Fix it and call grep again; to match one of ( ) [ ] { } . * + ? ^ $ | \\ literally, put a \\ before it",
    );
    expect(await grepCall(ctx, {})).toMatch(/^Error: invalid arguments for grep:\n- pattern: give pattern \(a regular expression\), or cursor to continue a previous search\n/);
    expect(await grepCall(ctx, { pattern: "" })).toMatch(/^Error: invalid arguments for grep:\n- pattern: the pattern is empty: give a regular expression\n/);
  });

  it("accepts patterns written for other engines when Unicode mode refuses them", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "a.txt"), "a-b\n{x}\nλ\n");
    expect(await grep(ctx, { pattern: "a\\-b" })).toBe("a.txt:1: a-b\n[1 match in 1 file]");
    expect(await grep(ctx, { pattern: "{x}" })).toBe("a.txt:2: {x}\n[1 match in 1 file]");
    expect(await grep(ctx, { pattern: "^\\p{L}$" })).toBe("a.txt:3: λ\n[1 match in 1 file]");
  });
});

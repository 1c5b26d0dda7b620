import { execFileSync } from "node:child_process";
import { appendFile, mkdir, open, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_LINE_CHARS } from "../../../src/tools/file/lines.js";
import { MAX_DIR_ENTRIES, MAX_PAGE_BYTES, MAX_PAGE_LINES, readFileTool, type ReadFileArgs } from "../../../src/tools/file/read-file.js";
import type { ToolContext } from "../../../src/tools/types.js";
import { ToolError } from "../../../src/tools/types.js";
import { toolProject, withPolicy } from "../../helpers/tools.js";

const read = (ctx: ToolContext, args: ReadFileArgs) => readFileTool.run(args, ctx);

interface Page {
  lines: { number: number; text: string }[];
  footer: string | undefined;
  cursor: string | undefined;
}

/** Splits a result into its numbered lines and the footer line, if any. */
function parsePage(result: string): Page {
  const rows = result.split("\n");
  const footer = rows[rows.length - 1]?.startsWith("[") ? rows.pop() : undefined;
  const lines = rows.map((row) => {
    const m = /^ *(\d+)\t(.*)$/s.exec(row);
    if (m === null) throw new Error(`not a numbered line: ${JSON.stringify(row)}`);
    return { number: Number(m[1]), text: m[2] ?? "" };
  });
  return { lines, footer, cursor: footer === undefined ? undefined : /cursor: (c_[0-9a-f]+)/.exec(footer)?.[1] };
}

/** Reads a whole file page by page through cursors; returns every page. */
async function readAll(ctx: ToolContext, args: ReadFileArgs): Promise<Page[]> {
  const pages = [parsePage(await read(ctx, args))];
  for (let cursor = pages[0]?.cursor; cursor !== undefined; cursor = pages[pages.length - 1]?.cursor) {
    pages.push(parsePage(await read(ctx, { cursor })));
  }
  return pages;
}

function numberedLines(count: number, text: (n: number) => string): string {
  return Array.from({ length: count }, (_, i) => `${text(i + 1)}\n`).join("");
}

describe("read_file on files", () => {
  it("returns numbered lines and no footer when the whole file fits", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "a.txt"), "alpha\n\tbeta\n\ngamma");
    expect(await read(ctx, { path: "a.txt" })).toBe("     1\talpha\n     2\t\tbeta\n     3\t\n     4\tgamma");
  });

  it("stops a page at MAX_PAGE_LINES lines and continues with the cursor", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(
      path.join(dir, "many.txt"),
      numberedLines(2500, (n) => `line ${n}`),
    );
    const first = parsePage(await read(ctx, { path: "many.txt" }));
    expect(first.lines).toHaveLength(MAX_PAGE_LINES);
    expect(first.lines[0]).toEqual({ number: 1, text: "line 1" });
    expect(first.lines[1999]).toEqual({ number: 2000, text: "line 2000" });
    expect(first.footer).toMatch(/^\[lines 1-2000 of many\.txt shown; about .* of the file remain\. cursor: c_\w+ — continue with read_file \{"cursor": "c_\w+"\}\]$/);

    const second = parsePage(await read(ctx, { cursor: first.cursor! }));
    expect(second.lines).toHaveLength(500);
    expect(second.lines[0]).toEqual({ number: 2001, text: "line 2001" });
    expect(second.lines[499]).toEqual({ number: 2500, text: "line 2500" });
    expect(second.footer).toBeUndefined();
  });

  it("stops a page at MAX_PAGE_BYTES, at a line boundary", async () => {
    const { ctx, dir } = await toolProject();
    const content = numberedLines(1000, (n) => `${n}:`.padEnd(100, "x"));
    await writeFile(path.join(dir, "wide.txt"), content);
    const result = await read(ctx, { path: "wide.txt" });
    const page = parsePage(result);
    const body = result.slice(0, result.lastIndexOf("\n["));
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_PAGE_BYTES);
    expect(page.lines.length).toBeGreaterThan(400);
    expect(page.lines.length).toBeLessThan(1000);
    expect(page.cursor).toBeDefined();

    const pages = await readAll(ctx, { path: "wide.txt" });
    expect(pages.flatMap((p) => p.lines.map((l) => `${l.text}\n`)).join("")).toBe(content);
  });

  it("cuts lines longer than MAX_LINE_CHARS with a note, also across read chunks and in multi-byte text", async () => {
    const { ctx, dir } = await toolProject();
    const huge = "é".repeat(100_000);
    await writeFile(path.join(dir, "long.txt"), `${"x".repeat(12345)}\nshort\n${huge}\r\nend\n`);
    const page = parsePage(await read(ctx, { path: "long.txt" }));
    expect(page.lines.map((l) => l.number)).toEqual([1, 2, 3, 4]);
    expect(page.lines[0]?.text).toBe(`${"x".repeat(MAX_LINE_CHARS)} … [line cut: 12345 chars]`);
    expect(page.lines[1]?.text).toBe("short");
    expect(page.lines[2]?.text).toBe(`${"é".repeat(MAX_LINE_CHARS)} … [line cut: 100000 chars]`);
    expect(page.lines[3]?.text).toBe("end");
  });

  it("continues byte-exact across multi-byte UTF-8 text", async () => {
    const { ctx, dir } = await toolProject();
    const content = numberedLines(3000, (n) => `${n} 한글 텍스트 🙂 ${"ü".repeat(n % 40)}`);
    await writeFile(path.join(dir, "utf8.txt"), content);
    const pages = await readAll(ctx, { path: "utf8.txt" });
    expect(pages.length).toBeGreaterThan(2);
    const lines = pages.flatMap((p) => p.lines);
    expect(lines.map((l) => l.number)).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    expect(lines.map((l) => `${l.text}\n`).join("")).toBe(content);

    const cursor = pages[0]!.cursor!;
    const state = ctx.session.cursors.get(cursor)!;
    const shown = pages[0]!.lines.map((l) => `${l.text}\n`).join("");
    expect(state.nextByte).toBe(Buffer.byteLength(shown));
    expect(state.nextLine).toBe(pages[0]!.lines.length + 1);
  });

  it("shows CRLF lines without \\r and continues byte-exact", async () => {
    const { ctx, dir } = await toolProject();
    const lines = Array.from({ length: 2600 }, (_, i) => `row ${i + 1}`);
    await writeFile(path.join(dir, "crlf.txt"), `${lines.join("\r\n")}\r\n`);
    const pages = await readAll(ctx, { path: "crlf.txt" });
    expect(pages).toHaveLength(2);
    expect(pages.flatMap((p) => p.lines.map((l) => l.text))).toEqual(lines);
    expect(ctx.session.cursors.get(pages[0]!.cursor!)!.nextByte).toBe(Buffer.byteLength(`${lines.slice(0, 2000).join("\r\n")}\r\n`));
  });

  it("reads a range with offset and limit, and a cursor finishes the range, then reads on", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(
      path.join(dir, "range.txt"),
      numberedLines(5000, (n) => `L${n}`),
    );

    const small = parsePage(await read(ctx, { path: "range.txt", offset: 3, limit: 2 }));
    expect(small.lines).toEqual([
      { number: 3, text: "L3" },
      { number: 4, text: "L4" },
    ]);
    expect(small.footer).toMatch(/that was the requested range; the file goes on from line 5/);

    const first = parsePage(await read(ctx, { path: "range.txt", offset: 10, limit: 2500 }));
    expect(first.lines[0]).toEqual({ number: 10, text: "L10" });
    expect(first.lines).toHaveLength(2000);
    expect(first.footer).toMatch(/the requested range has 500 more lines \(about .* left in the file\)/);
    expect(ctx.session.cursors.get(first.cursor!)!.linesLeft).toBe(500);

    const second = parsePage(await read(ctx, { cursor: first.cursor! }));
    expect(second.lines).toHaveLength(500);
    expect(second.lines[0]).toEqual({ number: 2010, text: "L2010" });
    expect(second.lines[499]).toEqual({ number: 2509, text: "L2509" });
    expect(second.footer).toMatch(/that was the requested range; the file goes on from line 2510/);
    expect(ctx.session.cursors.get(second.cursor!)!.linesLeft).toBeNull();

    const rest = parsePage(await read(ctx, { cursor: second.cursor! }));
    expect(rest.lines[0]).toEqual({ number: 2510, text: "L2510" });
    expect(rest.lines).toHaveLength(2000);

    const narrowed = parsePage(await read(ctx, { cursor: first.cursor!, limit: 3 }));
    expect(narrowed.lines.map((l) => l.number)).toEqual([2010, 2011, 2012]);
  });

  it("refuses a cursor whose file changed, was replaced or vanished", async () => {
    const { ctx, dir } = await toolProject();
    const file = path.join(dir, "moving.txt");
    await writeFile(
      file,
      numberedLines(2100, (n) => `v1 ${n}`),
    );
    const { cursor } = parsePage(await read(ctx, { path: "moving.txt" }));
    await appendFile(file, "more\n");
    await expect(read(ctx, { cursor: cursor! })).rejects.toThrow('the file changed since this cursor was made — read it again with path and offset: read_file {"path":"moving.txt","offset":2001}');

    const again = parsePage(await read(ctx, { path: "moving.txt" })).cursor!;
    await writeFile(path.join(dir, "other.txt"), numberedLines(2101, (n) => `v1 ${n}`).concat("more\n"));
    await rename(path.join(dir, "other.txt"), file);
    await expect(read(ctx, { cursor: again })).rejects.toThrow(/the file changed since this cursor was made/);

    const last = parsePage(await read(ctx, { path: "moving.txt" })).cursor!;
    await rename(file, path.join(dir, "gone.txt"));
    await expect(read(ctx, { cursor: last })).rejects.toThrow(/the file changed since this cursor was made/);
  });

  it("refuses an unknown cursor, and a cursor with another file's path", async () => {
    const { ctx, dir } = await toolProject();
    await expect(read(ctx, { cursor: "c_nope" })).rejects.toThrow(/unknown cursor "c_nope".*Read the file again with path/);
    await writeFile(
      path.join(dir, "a.txt"),
      numberedLines(2001, (n) => `${n}`),
    );
    const { cursor } = parsePage(await read(ctx, { path: "a.txt" }));
    await expect(read(ctx, { cursor: cursor!, path: "b.txt" })).rejects.toThrow(/continues a\.txt, not b\.txt/);
    expect(parsePage(await read(ctx, { cursor: cursor!, path: "./a.txt" })).lines[0]?.number).toBe(2001);
  });

  it("says when a file is empty and when the offset is past the end", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "empty.txt"), "");
    await writeFile(path.join(dir, "three.txt"), "a\nb\nc\n");
    await writeFile(path.join(dir, "unterminated.txt"), "a\nb");
    expect(await read(ctx, { path: "empty.txt" })).toBe("empty.txt is empty (0 lines).");
    await expect(read(ctx, { path: "three.txt", offset: 4 })).rejects.toThrow(/offset 4 is past the end: three\.txt has 3 lines/);
    await expect(read(ctx, { path: "unterminated.txt", offset: 9 })).rejects.toThrow(/has 2 lines/);
    expect(await read(ctx, { path: "three.txt", offset: 3 })).toBe("     3\tc");
    expect(await read(ctx, { path: "unterminated.txt", offset: 2 })).toBe("     2\tb");
  });

  it("refuses binary files", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "bin.dat"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));
    await expect(read(ctx, { path: "bin.dat" })).rejects.toThrow(/^binary file: bin\.dat contains NUL bytes and cannot be read as text$/);
  });

  it("reads a file that is not UTF-8 as Windows-1252, and says so", async () => {
    const { ctx, dir } = await toolProject();
    // é in Latin-1, and 0x80 and 0x93/0x94, which Windows-1252 gives to € and curly quotes.
    await writeFile(path.join(dir, "latin1.txt"), Buffer.concat([Buffer.from("ok\ncaf\xe9\r\n", "latin1"), Buffer.from([0x80, 0x20, 0x93, 0x71, 0x94, 0x0a])]));
    expect(await read(ctx, { path: "latin1.txt" })).toBe("     1\tok\n     2\tcafé\n     3\t€ \u201cq\u201d\n[latin1.txt is not UTF-8 text: shown decoded as Windows-1252 (Latin-1); search_replace keeps that encoding]");
    // Page by page: a cursor goes on in the same bytes, and a UTF-8 page stays UTF-8.
    await writeFile(path.join(dir, "mixed.txt"), Buffer.concat([Buffer.from("na\u00efve\n"), Buffer.from("caf\xe9\n", "latin1")]));
    const first = await read(ctx, { path: "mixed.txt", limit: 1 });
    expect(first).toMatch(/^ {5}1\tnaïve\n\[line 1 of mixed\.txt shown/);
    const cursor = /cursor: (c_[0-9a-f]+)/.exec(first)![1]!;
    expect(await read(ctx, { cursor })).toBe("     2\tcafé\n[mixed.txt is not UTF-8 text: shown decoded as Windows-1252 (Latin-1); search_replace keeps that encoding]");
  });

  it("hides a UTF-8 BOM", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "bom.txt"), "\uFEFFfirst\nsecond\n");
    expect(await read(ctx, { path: "bom.txt" })).toBe("     1\tfirst\n     2\tsecond");
  });

  it("refuses a FIFO without waiting for a writer", async () => {
    const { ctx, dir } = await toolProject();
    execFileSync("mkfifo", [path.join(dir, "pipe")]);
    await expect(read(ctx, { path: "pipe" })).rejects.toThrow(/pipe is not a regular file/);
  });

  it("says when a file does not exist and where to look", async () => {
    const { ctx } = await toolProject();
    await expect(read(ctx, { path: "src/missing.ts" })).rejects.toThrow('src/missing.ts does not exist. See what is there with read_file {"path":"src"}');
  });

  it("reads page 1 of a 20 MB file and a line deep inside it", async () => {
    const { ctx, dir } = await toolProject();
    const file = path.join(dir, "big.log");
    const fh = await open(file, "w");
    const perBlock = 10_000;
    let written = 0;
    for (let block = 0; written < 20 * 1024 * 1024; block++) {
      const text = numberedLines(perBlock, (n) => `entry ${block * perBlock + n}`);
      await fh.write(text);
      written += Buffer.byteLength(text);
    }
    await fh.close();

    const first = parsePage(await read(ctx, { path: "big.log" }));
    expect(first.lines).toHaveLength(MAX_PAGE_LINES);
    expect(first.lines[0]).toEqual({ number: 1, text: "entry 1" });
    expect(first.lines[1999]).toEqual({ number: 2000, text: "entry 2000" });
    expect(first.footer).toMatch(/about (19|20) MB of the file remain/);

    const deep = parsePage(await read(ctx, { path: "big.log", offset: 1_300_001, limit: 2 }));
    expect(deep.lines).toEqual([
      { number: 1_300_001, text: "entry 1300001" },
      { number: 1_300_002, text: "entry 1300002" },
    ]);
  });
});

describe("read_file on directories", () => {
  it("lists entries sorted, directories marked, hiding only .hel at the project root", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, ".hel", "sessions"), { recursive: true });
    await mkdir(path.join(dir, "src", ".hel"), { recursive: true });
    await mkdir(path.join(dir, "b-dir"));
    await writeFile(path.join(dir, "a.txt"), "");
    await writeFile(path.join(dir, ".env"), "");
    await writeFile(path.join(dir, "Z.md"), "");
    expect(await read(ctx, { path: "." })).toBe("the project directory: 5 entries\n.env\nZ.md\na.txt\nb-dir/\nsrc/");
    expect(await read(ctx, { path: "src" })).toBe("src/: 1 entry\n.hel/");
    await mkdir(path.join(dir, "void"));
    expect(await read(ctx, { path: "void" })).toBe("void is an empty directory.");
  });

  it("caps a long listing with a note", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, "crowd"));
    await Promise.all(Array.from({ length: MAX_DIR_ENTRIES + 5 }, (_, i) => writeFile(path.join(dir, "crowd", `f${String(i).padStart(5, "0")}`), "")));
    const rows = (await read(ctx, { path: "crowd" })).split("\n");
    expect(rows[0]).toBe(`crowd/: ${MAX_DIR_ENTRIES + 5} entries`);
    expect(rows).toHaveLength(MAX_DIR_ENTRIES + 2);
    expect(rows[rows.length - 1]).toBe(`[${MAX_DIR_ENTRIES} of ${MAX_DIR_ENTRIES + 5} entries shown; the listing stops here. Read the files you need by path.]`);
  });
});

describe("read_file and the path rules", () => {
  it("refuses paths outside the project and under .hel/", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, ".hel"));
    await expect(read(ctx, { path: "../outside" })).rejects.toThrow(ToolError);
    await expect(read(ctx, { path: ".hel" })).rejects.toThrow(ToolError);
  });
});

describe("secrets in files", () => {
  it("a secret is redacted even where a long line is cut in its middle", async () => {
    const key = "sk-test-secret-0123456789";
    const { ctx, dir } = await toolProject();
    const withSecrets = withPolicy(ctx, { secrets: [key] });
    // The key straddles the 2,000-character cut; then after 4-byte characters, where only the start of the key is kept at all.
    await writeFile(path.join(dir, "a.txt"), `${"A".repeat(1990)}${key}${"B".repeat(10)}\n${"😀".repeat(1995)}${key}\n`);
    const out = await readFileTool.run({ path: "a.txt" }, withSecrets);
    expect(out).not.toContain(key.slice(0, 8));
    expect(out).toContain("[REDACTED]");
  });
});

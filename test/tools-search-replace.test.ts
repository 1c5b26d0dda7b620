import { execFileSync } from "node:child_process";
import { chmod, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { searchReplaceTool, type SearchReplaceArgs } from "../src/tools/search-replace.js";
import { loadTextFile, saveTextFile } from "../src/tools/text-file.js";
import type { FileEdit } from "../src/tools/file-edit.js";
import type { ToolContext } from "../src/tools/types.js";
import { ToolError } from "../src/tools/types.js";
import { toolProject } from "./helpers/tools.js";

const edit = (ctx: ToolContext, args: SearchReplaceArgs) => searchReplaceTool.run(args, ctx);

describe("search_replace", () => {
  it("replaces the one exact occurrence and says which lines changed", async () => {
    const { ctx, dir } = await toolProject();
    const file = path.join(dir, "app.ts");
    await writeFile(file, "const a = 1;\nconst port = 80;\nconst b = 2;\n");
    const result = await edit(ctx, { path: "app.ts", old_text: "const port = 80;", new_text: "const port = 8143;\n// changed" });
    expect(result).toBe("Edited app.ts: replaced line 2; the new text is at lines 2-3.");
    expect(await readFile(file, "utf8")).toBe("const a = 1;\nconst port = 8143;\n// changed\nconst b = 2;\n");
  });

  it("reports a removal", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "f.txt"), "keep\ndrop 1\ndrop 2\nkeep\n");
    expect(await edit(ctx, { path: "f.txt", old_text: "drop 1\ndrop 2\n", new_text: "" })).toBe("Edited f.txt: removed lines 2-3.");
    expect(await readFile(path.join(dir, "f.txt"), "utf8")).toBe("keep\nkeep\n");
  });

  it("says when old_text is not found, and suggests reading the file again", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "f.txt"), "function f() {\n\treturn 1;\n}\n");
    await expect(edit(ctx, { path: "f.txt", old_text: "return 2;", new_text: "x" })).rejects.toThrow(
      /^old_text was not found in f\.txt\. Read f\.txt again with read_file and copy the text exactly/,
    );
    await expect(edit(ctx, { path: "f.txt", old_text: "function f() {\n    return 1;\n}", new_text: "x" })).rejects.toThrow(
      /matches when whitespace is ignored/,
    );
    await expect(edit(ctx, { path: "f.txt", old_text: "     2\t\treturn 1;", new_text: "x" })).rejects.toThrow(/line-number prefixes/);
    expect(await readFile(path.join(dir, "f.txt"), "utf8")).toBe("function f() {\n\treturn 1;\n}\n");
  });

  it("refuses several occurrences with their count and lines", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "f.txt"), "x = 1\ny = 2\nx = 1\nz\nx = 1\n");
    await expect(edit(ctx, { path: "f.txt", old_text: "x = 1", new_text: "x = 3" })).rejects.toThrow(
      "old_text occurs 3 times in f.txt (at lines 1, 3, 5); it must occur exactly once. Add surrounding lines to old_text",
    );
    await writeFile(path.join(dir, "g.txt"), "aaa");
    await expect(edit(ctx, { path: "g.txt", old_text: "aa", new_text: "b" })).rejects.toThrow(/occurs 2 times/);
  });

  it("refuses identical old_text and new_text", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "f.txt"), "same\n");
    await expect(edit(ctx, { path: "f.txt", old_text: "same", new_text: "same" })).rejects.toThrow(/identical/);
  });

  it("creates a missing file, parent directories too, when old_text is empty", async () => {
    const { ctx, dir } = await toolProject();
    expect(await edit(ctx, { path: "pkg/deep/new.txt", old_text: "", new_text: "one\ntwo\n" })).toBe("Created pkg/deep/new.txt (2 lines).");
    expect(await readFile(path.join(dir, "pkg", "deep", "new.txt"), "utf8")).toBe("one\ntwo\n");
  });

  it("tells how to create a missing file when old_text is not empty", async () => {
    const { ctx } = await toolProject();
    await expect(edit(ctx, { path: "src/none.ts", old_text: "x", new_text: "y" })).rejects.toThrow(
      /src\/none\.ts does not exist\. To create it, call search_replace with old_text ""/,
    );
  });

  it("refuses an empty old_text on an existing non-empty file, and fills an empty one", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "full.txt"), "content\n");
    await writeFile(path.join(dir, "empty.txt"), "");
    await expect(edit(ctx, { path: "full.txt", old_text: "", new_text: "new" })).rejects.toThrow(/already exists and is not empty/);
    expect(await edit(ctx, { path: "empty.txt", old_text: "", new_text: "filled\n" })).toBe("Wrote empty.txt (1 line).");
    expect(await readFile(path.join(dir, "empty.txt"), "utf8")).toBe("filled\n");
  });

  it("matches a CRLF file with \\n and writes CRLF back", async () => {
    const { ctx, dir } = await toolProject();
    const file = path.join(dir, "win.txt");
    await writeFile(file, "one\r\ntwo\r\nthree\r\n");
    await edit(ctx, { path: "win.txt", old_text: "one\ntwo\n", new_text: "uno\ndos\n" });
    expect(await readFile(file, "utf8")).toBe("uno\r\ndos\r\nthree\r\n");
    await edit(ctx, { path: "win.txt", old_text: "dos\r\nthree", new_text: "tres" });
    expect(await readFile(file, "utf8")).toBe("uno\r\ntres\r\n");
  });

  it("tells what it changed, numbered like the file, for a CRLF file and a new one", async () => {
    const { ctx, dir } = await toolProject();
    const edits: FileEdit[] = [];
    const recording = { ...ctx, recordEdit: (e: FileEdit) => void edits.push(e) };
    await writeFile(path.join(dir, "win.txt"), "one\r\ntwo\r\nthree\r\n");
    await edit(recording, { path: "win.txt", old_text: "two", new_text: "2\n2b" });
    await edit(recording, { path: "new/a.txt", old_text: "", new_text: "x\n" });
    expect(edits).toEqual([
      { path: "win.txt", created: false, added: 2, removed: 1, hunks: [{ old_start: 1, old_lines: 3, new_start: 1, new_lines: 4, lines: [" one", "-two", "+2", "+2b", " three"] }] },
      { path: "new/a.txt", created: true, added: 1, removed: 0, hunks: [{ old_start: 1, old_lines: 0, new_start: 1, new_lines: 1, lines: ["+x"] }] },
    ]);
  });

  it("leaves the other lines of a mixed-ending file byte for byte", async () => {
    const { ctx, dir } = await toolProject();
    const file = path.join(dir, "mixed.txt");
    await writeFile(file, "a\r\nb\nc\r\nd\n");
    await edit(ctx, { path: "mixed.txt", old_text: "c\n", new_text: "C1\nC2\n" });
    expect(await readFile(file, "utf8")).toBe("a\r\nb\nC1\r\nC2\r\nd\n");
  });

  it("keeps a UTF-8 BOM", async () => {
    const { ctx, dir } = await toolProject();
    const file = path.join(dir, "bom.cs");
    await writeFile(file, "\uFEFFclass A {}\n");
    await edit(ctx, { path: "bom.cs", old_text: "class A {}", new_text: "class B {}" });
    const bytes = await readFile(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString("utf8")).toBe("class B {}\n");
  });

  it("keeps the file's mode", async () => {
    const { ctx, dir } = await toolProject();
    const file = path.join(dir, "run.sh");
    await writeFile(file, "echo hi\n");
    await chmod(file, 0o751);
    await edit(ctx, { path: "run.sh", old_text: "hi", new_text: "hello" });
    expect((await stat(file)).mode & 0o7777).toBe(0o751);
  });

  it("refuses files that are not UTF-8 text", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "latin1.txt"), Buffer.from("caf\xe9\n", "latin1"));
    await writeFile(path.join(dir, "bin.dat"), Buffer.from([1, 0, 2]));
    await expect(edit(ctx, { path: "latin1.txt", old_text: "caf", new_text: "bar" })).rejects.toThrow(/latin1\.txt is not valid UTF-8 text/);
    await expect(edit(ctx, { path: "bin.dat", old_text: "x", new_text: "y" })).rejects.toThrow(/binary file: bin\.dat/);
  });

  it("refuses edits with read-only access", async () => {
    const { ctx, dir } = await toolProject("read-only");
    await writeFile(path.join(dir, "f.txt"), "a\n");
    await expect(edit(ctx, { path: "f.txt", old_text: "a", new_text: "b" })).rejects.toThrow(
      "read-only access: edits are refused; report the change needed instead",
    );
    await expect(edit(ctx, { path: "new.txt", old_text: "", new_text: "b" })).rejects.toThrow(/read-only access/);
    expect(await readFile(path.join(dir, "f.txt"), "utf8")).toBe("a\n");
  });

  it("refuses paths outside the project and under .hel/", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, ".hel"));
    await expect(edit(ctx, { path: "../outside/x.txt", old_text: "", new_text: "x" })).rejects.toThrow(ToolError);
    await expect(edit(ctx, { path: ".hel/x.txt", old_text: "", new_text: "x" })).rejects.toThrow(ToolError);
  });

  it("refuses a FIFO without waiting for a writer", async () => {
    const { ctx, dir } = await toolProject();
    execFileSync("mkfifo", [path.join(dir, "pipe")]);
    await expect(edit(ctx, { path: "pipe", old_text: "a", new_text: "b" })).rejects.toThrow(/pipe is not a regular file/);
  });

  it("refuses a directory", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, "src"));
    await expect(edit(ctx, { path: "src", old_text: "a", new_text: "b" })).rejects.toThrow(/src is a directory/);
  });
});

describe("saving an edit", () => {
  it("refuses when the file vanished between read and write", async () => {
    const { dir } = await toolProject();
    const file = path.join(dir, "f.txt");
    await writeFile(file, "a\n");
    const loaded = (await loadTextFile(file, "f.txt"))!;
    await unlink(file);
    await expect(saveTextFile(file, "f.txt", loaded, "b\n")).rejects.toThrow(/f\.txt was deleted or moved while it was being edited; nothing was written/);
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });

  it("refuses when the file changed between read and write", async () => {
    const { dir } = await toolProject();
    const file = path.join(dir, "f.txt");
    await writeFile(file, "a\n");
    const loaded = (await loadTextFile(file, "f.txt"))!;
    await writeFile(file, "someone else's\n");
    await expect(saveTextFile(file, "f.txt", loaded, "b\n")).rejects.toThrow(/f\.txt changed while it was being edited/);
    expect(await readFile(file, "utf8")).toBe("someone else's\n");
  });
});

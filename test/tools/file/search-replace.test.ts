import { execFile, execFileSync } from "node:child_process";
import { chmod, chown, mkdir, readdir, readFile, stat, unlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openBeneath, type OpenDir } from "../../../src/fs/beneath.js";
import { applyEdit, searchReplaceTool, type SearchReplaceArgs } from "../../../src/tools/file/search-replace.js";
import { loadTextFile, saveTextFile } from "../../../src/tools/text-file.js";
import type { FileEdit } from "../../../src/changes/file-edit.js";
import type { ToolContext } from "../../../src/tools/types.js";
import { ToolError } from "../../../src/tools/types.js";
import { ROOT } from "../../helpers/hel.js";
import { toolProject } from "../../helpers/tools.js";

const edit = (ctx: ToolContext, args: SearchReplaceArgs) => searchReplaceTool.run(args, ctx);

describe("search_replace by two agents at once", () => {
  it("edits of one file started together both land, each starting from the text the other left", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, "src"));
    const file = path.join(dir, "src", "config.ts");
    await writeFile(file, "export const port = 80;\nexport const host = 'a';\nexport const debug = false;\n");
    // Through two spellings of one path: the lock is the file's, not the words'.
    const results = await Promise.all([
      edit(ctx, { path: "src/config.ts", old_text: "port = 80;", new_text: "port = 8143;" }),
      edit(ctx, { path: "./src/../src/config.ts", old_text: "host = 'a';", new_text: "host = 'b';" }),
      edit(ctx, { path: "src/config.ts", old_text: "debug = false;", new_text: "debug = true;" }),
    ]);
    expect(results).toEqual([
      "Edited src/config.ts: replaced line 1; the new text is at line 1.",
      "Edited src/config.ts: replaced line 2; the new text is at line 2.",
      "Edited src/config.ts: replaced line 3; the new text is at line 3.",
    ]);
    expect(await readFile(file, "utf8")).toBe("export const port = 8143;\nexport const host = 'b';\nexport const debug = true;\n");
  });

  it("an edit of text the other agent changed first fails as not found, telling it to read the file again", async () => {
    const { ctx, dir } = await toolProject();
    const file = path.join(dir, "f.txt");
    await writeFile(file, "port: 80\n");
    const news = ["port: 8143", "port: 9000"];
    const settled = await Promise.allSettled(news.map((new_text) => edit(ctx, { path: "f.txt", old_text: "port: 80", new_text })));
    // Which edit takes the lock first is not the order of the calls: each resolves and opens the path
    // (asynchronous) before it asks for the lock. Either may win; exactly one does, and the file is its.
    const won = settled.findIndex((s) => s.status === "fulfilled");
    expect(won).not.toBe(-1);
    expect(settled[won]).toEqual({ status: "fulfilled", value: "Edited f.txt: replaced line 1; the new text is at line 1." });
    expect(settled[1 - won]).toEqual({
      status: "rejected",
      reason: new ToolError("old_text was not found in f.txt. Read f.txt again with read_file and copy the text exactly; the file may have changed since you read it"),
    });
    expect(await readFile(file, "utf8")).toBe(`${news[won]}\n`);
  });
});

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
    await expect(edit(ctx, { path: "f.txt", old_text: "return 2;", new_text: "x" })).rejects.toThrow(/^old_text was not found in f\.txt\. Read f\.txt again with read_file and copy the text exactly/);
    await expect(edit(ctx, { path: "f.txt", old_text: "function f() {\n    return 1;\n}", new_text: "x" })).rejects.toThrow(/matches when whitespace is ignored/);
    await expect(edit(ctx, { path: "f.txt", old_text: "     2\t\treturn 1;", new_text: "x" })).rejects.toThrow(/line-number prefixes/);
    expect(await readFile(path.join(dir, "f.txt"), "utf8")).toBe("function f() {\n\treturn 1;\n}\n");
  });

  it("refuses several occurrences with their count and lines", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "f.txt"), "x = 1\ny = 2\nx = 1\nz\nx = 1\n");
    await expect(edit(ctx, { path: "f.txt", old_text: "x = 1", new_text: "x = 3" })).rejects.toThrow("old_text occurs 3 times in f.txt (at lines 1, 3, 5); it must occur exactly once. Add surrounding lines to old_text");
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
    await expect(edit(ctx, { path: "src/none.ts", old_text: "x", new_text: "y" })).rejects.toThrow(/src\/none\.ts does not exist\. To create it, call search_replace with old_text ""/);
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
    const recording = { ...ctx, report: { ...ctx.report, recordEdit: (e: FileEdit) => void edits.push(e) } };
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

  it("refuses binary files", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "bin.dat"), Buffer.from([1, 0, 2]));
    await expect(edit(ctx, { path: "bin.dat", old_text: "x", new_text: "y" })).rejects.toThrow(/binary file: bin\.dat/);
  });

  it("edits a Windows-1252 file in its encoding, every other byte kept, and refuses what the encoding cannot hold", async () => {
    const { ctx, dir } = await toolProject();
    const file = path.join(dir, "latin1.txt");
    // Every byte from 0x80 to 0xff (the five Windows-1252 leaves undefined included) stays as it was.
    const high = Buffer.from(Array.from({ length: 128 }, (_, i) => 0x80 + i));
    await writeFile(file, Buffer.concat([Buffer.from("caf\xe9 = 1\n", "latin1"), high, Buffer.from("\n")]));
    await edit(ctx, { path: "latin1.txt", old_text: "café = 1", new_text: "café = 2 €" });
    expect(await readFile(file)).toEqual(Buffer.concat([Buffer.from("caf\xe9 = 2 \x80\n", "latin1"), high, Buffer.from("\n")]));
    const before = await readFile(file);
    await expect(edit(ctx, { path: "latin1.txt", old_text: "café", new_text: "кафе" })).rejects.toThrow(
      /^latin1\.txt is Windows-1252 \(Latin-1\) text, which cannot hold "к" \(U\+043A\); nothing was written\. Make the edit with characters that encoding has$/,
    );
    expect(await readFile(file)).toEqual(before);
  });

  it("refuses edits with read-only access", async () => {
    const { ctx, dir } = await toolProject("read-only");
    await writeFile(path.join(dir, "f.txt"), "a\n");
    await expect(edit(ctx, { path: "f.txt", old_text: "a", new_text: "b" })).rejects.toThrow("read-only access: edits are refused; report the change needed instead");
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
  const openedDirs: OpenDir[] = [];
  afterEach(async () => {
    await Promise.all(openedDirs.splice(0).map((d) => d.close()));
  });
  /** A project holding `name`, its directory opened as the tools open it, and the file loaded from it. */
  async function loadFresh(name: string, content: string, mtime?: number) {
    const { dir } = await toolProject();
    const file = path.join(dir, name);
    await writeFile(file, content);
    if (mtime !== undefined) await utimes(file, mtime, mtime);
    const opened = await openBeneath(dir, []);
    openedDirs.push(opened);
    const loaded = (await loadTextFile(opened, name, name))!;
    return { dir, file, save: (text: string, beforeCheck?: () => Promise<unknown>) => saveTextFile(opened, name, name, loaded, text, beforeCheck) };
  }

  it("refuses when the file vanished between read and write", async () => {
    const { file, save } = await loadFresh("f.txt", "a\n");
    await unlink(file);
    await expect(save("b\n")).rejects.toThrow(/f\.txt was deleted or moved while it was being edited; nothing was written/);
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });

  it("refuses when the file changed between read and write", async () => {
    const { file, save } = await loadFresh("f.txt", "a\n");
    await writeFile(file, "someone else's\n");
    await expect(save("b\n")).rejects.toThrow(/f\.txt changed while it was being edited/);
    expect(await readFile(file, "utf8")).toBe("someone else's\n");
  });

  it("keeps what another process appends while the new content is being written, refusing the edit", async () => {
    const { dir, file, save } = await loadFresh("log.txt", "line 1\nline 2\n");
    // The other writer appends once hel's new content is written and synced, just before the rename.
    const appendByAnotherProcess = () => run("sh", ["-c", 'printf "appended\\n" >> "$1"', "sh", file]);
    await expect(save("line 1\nLINE 2\n", appendByAnotherProcess)).rejects.toThrow("log.txt changed while it was being edited; nothing was written. Read it again and make the edit on its current content");
    expect(await readFile(file, "utf8")).toBe("line 1\nline 2\nappended\n");
    expect(await readdir(dir)).toEqual(["log.txt"]);
  });

  it("refuses a rewrite of the same size and time, told by the content", async () => {
    // Whole seconds, so that the time set again after the rewrite is exactly the time loaded.
    const second = 1_700_000_000;
    const { file, save } = await loadFresh("f.txt", "abc\n", second);
    const rewriteInPlace = async () => {
      await writeFile(file, "xyz\n");
      await utimes(file, second, second);
    };
    await expect(save("abd\n", rewriteInPlace)).rejects.toThrow(/f\.txt changed while it was being edited/);
    expect(await readFile(file, "utf8")).toBe("xyz\n");
  });

  it("refuses when the file is made read-only meanwhile", async () => {
    const { file, save } = await loadFresh("f.txt", "a\n");
    await expect(save("b\n", () => chmod(file, 0o444))).rejects.toThrow(/f\.txt is read-only/);
    expect(await readFile(file, "utf8")).toBe("a\n");
  });
});

describe("an edit of a file another process changes before the rename", () => {
  const openedDirs: OpenDir[] = [];
  afterEach(async () => {
    await Promise.all(openedDirs.splice(0).map((d) => d.close()));
  });
  /** Loads `content` as search_replace does and edits it; `change` runs as a real process once, just before the check. */
  async function editWhileChanged(content: string, change: string, oldText: string, newText: string) {
    const { dir } = await toolProject();
    const file = path.join(dir, "f.txt");
    await writeFile(file, content);
    const opened = await openBeneath(dir, []);
    openedDirs.push(opened);
    const loaded = (await loadTextFile(opened, "f.txt", "f.txt"))!;
    let changes = 0;
    const beforeCheck = async () => {
      if (changes++ === 0) await run("sh", ["-c", change, "sh", file]);
    };
    const outcome = applyEdit(opened, "f.txt", "f.txt", loaded, oldText, newText, beforeCheck);
    return { file, outcome, changes: () => changes };
  }

  it("is read again and edited anew when old_text is still there once: both changes are kept", async () => {
    const { file, outcome, changes } = await editWhileChanged("alpha: 1\nbeta: 1\n", 'sed -i "s/beta: 1/beta: 2/" "$1"', "alpha: 1", "alpha: 2");
    await expect(outcome).resolves.toMatchObject({ line: 1 });
    expect(await readFile(file, "utf8")).toBe("alpha: 2\nbeta: 2\n");
    // Checked again before the second rename too.
    expect(changes()).toBe(2);
  });

  it("an edit the same size and time as the one read is told by its content", async () => {
    const { file, outcome } = await editWhileChanged("abc\nkeep\n", 'printf "abc\\nKEEP\\n" > "$1.new"; touch -r "$1" "$1.new"; cat "$1.new" > "$1"; touch -r "$1.new" "$1"; rm "$1.new"', "abc", "abd");
    await outcome;
    expect(await readFile(file, "utf8")).toBe("abd\nKEEP\n");
  });

  it("fails saying the file changed when old_text is gone from the new content, or no longer unique, and writes nothing", async () => {
    for (const [change, why, left] of [
      ['sed -i "s/alpha: 1/omega: 1/" "$1"', "old_text is no longer in it", "omega: 1\nbeta: 1\n"],
      ['echo "alpha: 1" >> "$1"', "old_text now occurs 2 times in it", "alpha: 1\nbeta: 1\nalpha: 1\n"],
    ] as const) {
      const { file, outcome } = await editWhileChanged("alpha: 1\nbeta: 1\n", change, "alpha: 1", "alpha: 2");
      await expect(outcome).rejects.toThrow(
        `f.txt changed while it was being edited (by a command, another agent or an editor), and ${why}; nothing was written. Read it again with read_file and make the edit on its current content`,
      );
      expect(await readFile(file, "utf8")).toBe(left);
    }
  });
});

describe("a read-only file", () => {
  it("is refused, whoever runs hel (root included), and left as it is", async () => {
    const { ctx, dir } = await toolProject();
    for (const [name, mode] of [
      ["ro.txt", 0o444],
      ["ro.sh", 0o555],
      ["none.txt", 0o000],
    ] as const) {
      const file = path.join(dir, name);
      await writeFile(file, "keep me\n");
      await chmod(file, mode);
      await expect(edit(ctx, { path: name, old_text: "keep me", new_text: "changed" })).rejects.toThrow(
        `${name} is read-only (mode ${mode.toString(8).padStart(4, "0")}: no write permission), so hel does not edit it; nothing was written. Report the change needed instead`,
      );
      expect(await readFile(file, "utf8")).toBe("keep me\n");
      expect((await stat(file)).mode & 0o7777).toBe(mode);
    }
    await writeFile(path.join(dir, "empty.txt"), "");
    await chmod(path.join(dir, "empty.txt"), 0o444);
    await expect(edit(ctx, { path: "empty.txt", old_text: "", new_text: "x" })).rejects.toThrow(/empty\.txt is read-only/);
  });

  it("is still edited when anyone may write it", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "group.txt"), "a\n");
    await chmod(path.join(dir, "group.txt"), 0o464);
    await edit(ctx, { path: "group.txt", old_text: "a", new_text: "b" });
    expect(await readFile(path.join(dir, "group.txt"), "utf8")).toBe("b\n");
  });
});

describe("owner and group", () => {
  const asRoot = process.getuid?.() === 0;

  it.runIf(asRoot)("are kept by an edit, set-user-ID bit included", async () => {
    const { ctx, dir } = await toolProject();
    const file = path.join(dir, "tool.sh");
    await writeFile(file, "echo hi\n");
    await chown(file, 1234, 5678);
    await chmod(file, 0o4755);
    await edit(ctx, { path: "tool.sh", old_text: "hi", new_text: "hello" });
    const st = await stat(file);
    expect({ uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }).toEqual({ uid: 1234, gid: 5678, mode: 0o4755 });
    expect(await readFile(file, "utf8")).toBe("echo hello\n");
  });

  it.runIf(asRoot)("are kept as far as the process may: a user who may not set the group still edits", async () => {
    const { ctx, dir } = await toolProject();
    await chmod(path.dirname(dir), 0o755);
    await chown(dir, 65534, 65534);
    const file = path.join(dir, "f.txt");
    await writeFile(file, "a\n");
    await chown(file, 65534, 0);
    await chmod(file, 0o664);
    const script = `
      const [modules, project] = process.argv.slice(1);
      const { searchReplaceTool } = await import(modules + "/tools/file/search-replace.js");
      const { detachedContext } = await import(modules + "/tools/detached-context.js");
      const ctx = detachedContext(project, "edit", "s1");
      console.log(await searchReplaceTool.run({ path: "f.txt", old_text: "a", new_text: "b" }, ctx));`;
    const out = await run(process.execPath, ["--input-type=module", "-e", script, path.join(ROOT, "out", "src"), ctx.projectDir], { uid: 65534, gid: 65534 });
    expect(out).toBe("Edited f.txt: replaced line 1; the new text is at line 1.\n");
    const st = await stat(file);
    expect({ uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }).toEqual({ uid: 65534, gid: 65534, mode: 0o664 });
    expect(await readFile(file, "utf8")).toBe("b\n");
  });
});

/** Runs a real process to its end and gives its stdout; fails with its stderr. */
function run(cmd: string, args: string[], ids: { uid?: number; gid?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, ids, (error, stdout, stderr) => (error ? reject(new Error(`${cmd} failed: ${stderr}`)) : resolve(stdout)));
  });
}

import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readFileTool } from "../../src/tools/file/read-file.js";
import { searchReplaceTool } from "../../src/tools/file/search-replace.js";
import { SPILL_HEAD_BYTES, SPILL_LIMIT, spillIfLong } from "../../src/tools/spill.js";
import { ToolError } from "../../src/tools/types.js";
import { toolProject } from "../helpers/tools.js";

const NOTE = /\n\[result too long for the conversation: (.+?), (\d+) lines; (.+?)\. The whole result is in (\S+); read on with read_file (\{.*\})\]$/;

describe("spillIfLong", () => {
  it("returns a result within the limit unchanged, writing nothing", async () => {
    const { ctx } = await toolProject();
    const text = "x".repeat(SPILL_LIMIT);
    expect(await spillIfLong(text, ctx)).toBe(text);
    await expect(readdir(path.join(ctx.session.dir, "spill"))).rejects.toThrow(/ENOENT/);
  });

  it("keeps the head of a long result and says where the whole of it is and how to read on", async () => {
    const { ctx, dir } = await toolProject();
    const lines = Array.from({ length: 5000 }, (_, i) => `result line ${i + 1}`);
    const text = lines.join("\n");
    const out = await spillIfLong(text, ctx);

    const note = NOTE.exec(out);
    expect(note).not.toBeNull();
    const [, size, count, shown, spillPath, call] = note!;
    const head = out.slice(0, note!.index);
    expect(Buffer.byteLength(head)).toBeLessThanOrEqual(SPILL_HEAD_BYTES);
    const headLines = head.split("\n");
    expect(headLines).toEqual(lines.slice(0, headLines.length));
    expect(size).toMatch(/KB$/);
    expect(Number(count)).toBe(5000);
    expect(shown).toBe(`lines 1-${headLines.length} are shown above`);
    expect(spillPath).toMatch(/^\.hel\/sessions\/s1\/spill\/\d{8}T\d{6}-[0-9a-f]{6}\.txt$/);
    expect(JSON.parse(call!)).toEqual({ path: spillPath, offset: headLines.length + 1 });

    expect(await readFile(path.join(dir, spillPath!), "utf8")).toBe(text);
    // Even before the session's first save, nothing under .hel can be committed.
    expect(await readFile(path.join(dir, ".hel", ".gitignore"), "utf8")).toBe("*\n");
    const next = await readFileTool.run(JSON.parse(call!), ctx);
    expect(next.split("\n")[0]).toBe(`${String(headLines.length + 1).padStart(6)}\tresult line ${headLines.length + 1}`);
  });

  it("shows the start of a first line that is longer than the head, and reads on from line 1", async () => {
    const { ctx } = await toolProject();
    const text = "é".repeat(40_000);
    const out = await spillIfLong(text, ctx);
    const note = NOTE.exec(out)!;
    expect(note[3]).toBe("the start of line 1 is shown above");
    expect(JSON.parse(note[5]!).offset).toBe(1);
    const head = out.slice(0, note.index);
    expect(head).toMatch(/^é+ …$/);
    expect(Buffer.byteLength(head)).toBeLessThanOrEqual(SPILL_HEAD_BYTES + 4);
  });

  it("spill files can be read but not edited through the tools", async () => {
    const { ctx } = await toolProject();
    const out = await spillIfLong("y\n".repeat(SPILL_LIMIT), ctx);
    const spillPath = NOTE.exec(out)![4]!;
    expect(await readFileTool.run({ path: spillPath, offset: 1, limit: 1 }, ctx)).toMatch(/^ +1\ty\n\[line 1 of/);
    await expect(searchReplaceTool.run({ path: spillPath, old_text: "y", new_text: "z" }, ctx)).rejects.toThrow(ToolError);
  });
});

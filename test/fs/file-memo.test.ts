// The memo a start keeps of the files it checked (in hel's state folder): a file is found while it is
// unchanged and never after a write to it, even one that keeps its size; a file changed just before it
// was read is not kept; another build's memo, one edited by hand, or another project's, is empty;
// nothing is written into the project, and a `.hel/cache/` a clone committed is neither read nor written.
import { lstatSync, statSync } from "node:fs";
import { appendFile, copyFile, mkdir, readdir, readFile, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileMemo, memoFile } from "../../src/fs/file-memo.js";
import { tempProject } from "../helpers/temp-project.js";

/** A start late enough that every file written so far is settled. */
const later = () => Date.now() + 60_000;

async function projectWithFile(text: string): Promise<{ project: string; file: string }> {
  const project = await tempProject();
  await mkdir(join(project, ".hel"));
  const file = join(project, "notes.md");
  await writeFile(file, text);
  return { project, file };
}

/** The memo of a start late enough that every file written so far is settled. */
const memoOf = (project: string, stamp = "build-1", secrets: string[] = []) => FileMemo.open<string>(project, "notes", { stamp, secrets, now: later() });

/** A project with two files, kept as "a" and "b" in that order by a start. */
async function keptTwo(): Promise<{ project: string; file: string; other: string }> {
  const { project, file } = await projectWithFile("alpha\n");
  const other = join(project, "other.md");
  await writeFile(other, "beta\n");
  const memo = memoOf(project);
  memo.put(file, statSync(file), "a");
  memo.put(other, statSync(other), "b");
  await memo.save();
  return { project, file, other };
}

/** Keeps `value` for `file` in a memo of one start, saved. */
async function keep(project: string, file: string, value: string, stamp = "build-1"): Promise<void> {
  const memo = memoOf(project, stamp);
  expect(memo.get(file, statSync(file))).toBeUndefined();
  memo.put(file, statSync(file), value);
  await memo.save();
}

describe("FileMemo", () => {
  it("finds what it kept of an unchanged file in a later start, and not after a write of the same size", async () => {
    const { project, file } = await projectWithFile("alpha\n");
    await keep(project, file, "read once");
    expect(memoOf(project).get(file, statSync(file))).toBe("read once");
    await writeFile(file, "omega\n");
    expect(statSync(file).size).toBe(6);
    expect(memoOf(project).get(file, statSync(file))).toBeUndefined();
  });

  it("does not keep a file changed just before it was read: a second change in the same instant would look like none", async () => {
    const { project, file } = await projectWithFile("alpha\n");
    const memo = FileMemo.open<string>(project, "notes", { stamp: "build-1", secrets: [] });
    memo.put(file, statSync(file), "read at once");
    await memo.save();
    expect(memoOf(project).get(file, statSync(file))).toBeUndefined();
  });

  it("is empty for another build's checks, and for a memo written since hel sealed it", async () => {
    const { project, file } = await projectWithFile("alpha\n");
    await keep(project, file, "read once");
    expect(memoOf(project, "build-2").get(file, statSync(file))).toBeUndefined();
    const stored = memoFile(project, "notes");
    // hel's seal: a modification time no write gives a file.
    expect(statSync(stored).mtimeMs).toBeLessThan(Date.parse("2018-01-01"));
    const text = await readFile(stored, "utf8");
    expect(text).toContain('"read once"');
    // A hand edit that keeps the file valid and the same size: the seal is broken all the same.
    await writeFile(stored, text.replace('"read once"', '"edit once"'));
    expect(memoOf(project).get(file, statSync(file))).toBeUndefined();
    await rm(stored);
    await keep(project, file, "read once");
    await appendFile(stored, "\n");
    expect(memoOf(project).get(file, statSync(file))).toBeUndefined();
  });

  it("drops the files a start did not find, and writes nothing when nothing changed", async () => {
    const { project, file, other } = await keptTwo();
    const stored = memoFile(project, "notes");
    const written = lstatSync(stored);
    const same = memoOf(project);
    expect([same.get(file, statSync(file)), same.get(other, statSync(other))]).toEqual(["a", "b"]);
    await same.save();
    // Not written again: the same file, with its seal.
    expect([lstatSync(stored).ino, lstatSync(stored).mtimeMs]).toEqual([written.ino, written.mtimeMs]);
    const fewer = memoOf(project);
    expect(fewer.get(file, statSync(file))).toBe("a");
    await fewer.save();
    expect(memoOf(project).get(other, statSync(other))).toBeUndefined();
  });

  it("finds its entries when a start asks for them in another order, and keeps that order", async () => {
    const { project, file, other } = await keptTwo();
    const swapped = memoOf(project);
    expect([swapped.get(other, statSync(other)), swapped.get(file, statSync(file))]).toEqual(["b", "a"]);
    await swapped.save();
    const body = JSON.parse((await readFile(memoFile(project, "notes"), "utf8")).split("\n")[1]!) as { paths: string[] };
    expect(body.paths).toEqual([other, file]);
  });

  it("is empty for a start with a secret it holds, as written or as JSON escapes it", async () => {
    const { project, file } = await projectWithFile("alpha\n");
    const open = (secrets: string[]) => memoOf(project, "build-1", secrets);
    const memo = open([]);
    memo.put(file, statSync(file), 'kept "quoted-secret" and plain-secret-1');
    await memo.save();
    expect(open(["another-secret"]).get(file, statSync(file))).toBe('kept "quoted-secret" and plain-secret-1');
    expect(open(["plain-secret-1"]).get(file, statSync(file))).toBeUndefined();
    expect(open(['"quoted-secret"']).get(file, statSync(file))).toBeUndefined();
    // Too short to be a secret redactSecrets masks: not one here either.
    expect(open(["plain"]).get(file, statSync(file))).toBe('kept "quoted-secret" and plain-secret-1');
  });

  it("writes nothing into the project, not through a .hel/cache a clone planted, and takes no other project's memo", async () => {
    const bare = await tempProject();
    const file = join(bare, "notes.md");
    await writeFile(file, "alpha\n");
    await keep(bare, file, "kept");
    expect(await readdir(bare)).toEqual(["notes.md"]);
    expect(memoOf(bare).get(file, statSync(file))).toBe("kept");

    const { project, file: notes } = await projectWithFile("alpha\n");
    const elsewhere = await tempProject();
    await symlink(elsewhere, join(project, ".hel", "cache"));
    await keep(project, notes, "kept here");
    expect(await readdir(elsewhere)).toEqual([]);
    expect(memoOf(project).get(notes, statSync(notes))).toBe("kept here");

    // Another project's memo where this one's goes (as if their paths' hashes clashed): empty.
    const other = await tempProject();
    await copyFile(memoFile(bare, "notes"), memoFile(other, "notes"));
    await utimes(memoFile(other, "notes"), statSync(memoFile(bare, "notes")).atime, statSync(memoFile(bare, "notes")).mtime);
    expect(memoOf(bare).get(file, statSync(file))).toBe("kept");
    expect(memoOf(other).get(file, statSync(file))).toBeUndefined();
  });
});

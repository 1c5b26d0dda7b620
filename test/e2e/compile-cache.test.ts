// The code cache hel's launcher runs the bundle through: a cache is used only for the file it was
// made from, anything else compiles from source, and no cache problem ever stops hel.
import { readFile, readdir, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { cacheDirectory, cacheFileName } from "../../src/bin/compile-cache.cjs";
import { ROOT, runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

const LOADER = join(ROOT, "dist", "bin", "compile-cache.cjs");

/**
 * Loads `main` with a ChunkLoader in a fresh process, as hel's launcher does, and saves its caches.
 * A process of its own each time: V8 keeps what it compiled in memory and would otherwise never
 * look at the cache on disk.
 */
function runLoader(main: string, cacheDir: string | null): { exports: unknown; compiled: string[] } {
  const script = `const { ChunkLoader } = require(${JSON.stringify(LOADER)});
const loader = new ChunkLoader(${JSON.stringify(cacheDir)});
const exports = loader.load(${JSON.stringify(main)});
loader.save();
process.stdout.write(JSON.stringify({ exports, compiled: loader.compiled }));`;
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })) as { exports: unknown; compiled: string[] };
}

/** Two chunks as rolldown writes them: main requires a sibling chunk and a built-in module. */
async function chunks(value: string): Promise<{ dir: string; main: string; part: string }> {
  const dir = await tempProject();
  const main = join(dir, "main.cjs");
  const part = join(dir, "part.cjs");
  await writeFile(main, `const part = require("./part.cjs");\nconst { sep } = require("node:path");\nmodule.exports = { value: part.value, sep, self: __filename };\n`);
  await writeFile(part, `exports.value = ${JSON.stringify(value)};\n`);
  return { dir, main, part };
}

describe("cacheDirectory", () => {
  const version = `node-${process.version}-${process.arch}`;
  it("follows each platform's convention for a user's cache", () => {
    expect(cacheDirectory({}, "linux", "/home/u")).toBe(join("/home/u/.cache/hel", version));
    expect(cacheDirectory({ XDG_CACHE_HOME: "/x/cache" }, "linux", "/home/u")).toBe(join("/x/cache/hel", version));
    // A relative XDG_CACHE_HOME is invalid by the XDG spec and ignored.
    expect(cacheDirectory({ XDG_CACHE_HOME: "cache" }, "linux", "/home/u")).toBe(join("/home/u/.cache/hel", version));
    expect(cacheDirectory({}, "darwin", "/Users/u")).toBe(join("/Users/u/Library/Caches/hel", version));
    expect(cacheDirectory({ LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32", "C:\\Users\\u")).toBe(join("C:\\Users\\u\\AppData\\Local", "hel", version));
  });
  it("is off with NODE_DISABLE_COMPILE_CACHE or without a home", () => {
    expect(cacheDirectory({ NODE_DISABLE_COMPILE_CACHE: "1" }, "linux", "/home/u")).toBeNull();
    expect(cacheDirectory({}, "linux", "")).toBeNull();
  });
  it("names caches after the bundle's directory, so two installs keep their own", () => {
    expect(cacheFileName("/a/dist/bundle/main.cjs")).toMatch(/^[0-9a-f]{8}-main\.cjs\.cache$/);
    expect(cacheFileName("/a/dist/bundle/main.cjs")).not.toBe(cacheFileName("/b/dist/bundle/main.cjs"));
    expect(cacheFileName("/a/dist/bundle/run.cjs").slice(0, 8)).toBe(cacheFileName("/a/dist/bundle/main.cjs").slice(0, 8));
  });
  it("names a chunk's cache without the content hash in its name, so a rebuilt chunk replaces its cache", () => {
    expect(cacheFileName("/a/dist/bundle/run.ClsVgay2.cjs")).toBe(cacheFileName("/a/dist/bundle/run.cjs"));
    expect(cacheFileName("/a/dist/bundle/style.BQ-zQvIV.cjs")).toMatch(/^[0-9a-f]{8}-style\.cjs\.cache$/);
  });
});

describe("ChunkLoader", () => {
  it("runs chunks like require, then runs them again from the cache it saved", async () => {
    const { main, part } = await chunks("one");
    const cache = join(await tempProject(), "cache");
    expect(runLoader(main, cache)).toEqual({ exports: { value: "one", sep: "/", self: main }, compiled: [main, part] });
    const files = (await readdir(cache)).sort();
    expect(files).toEqual([cacheFileName(main), cacheFileName(part)].sort());
    expect((await stat(cache)).mode & 0o777).toBe(0o700);
    expect((await readFile(join(cache, cacheFileName(main)))).subarray(0, 15).toString()).toBe("hel-code-cache ");
    expect(runLoader(main, cache)).toEqual({ exports: { value: "one", sep: "/", self: main }, compiled: [] });
  });

  it("never runs a cache made for another version of the file", async () => {
    const { main, part } = await chunks("one");
    const cache = join(await tempProject(), "cache");
    runLoader(main, cache);
    // The same length, so V8's own check (which looks at the length) would accept the old cache.
    const before = await stat(part);
    await writeFile(part, `exports.value = ${JSON.stringify("two")};\n`);
    await utimes(part, before.atime, new Date(before.mtimeMs + 5000));
    expect(runLoader(main, cache)).toMatchObject({ exports: { value: "two" }, compiled: [part] });
    expect(runLoader(main, cache)).toMatchObject({ exports: { value: "two" }, compiled: [] });
  });

  it("drops a cache damaged on disk, compiles from source and writes it again", async () => {
    const { main } = await chunks("one");
    const cache = join(await tempProject(), "cache");
    runLoader(main, cache);
    const file = join(cache, cacheFileName(main));
    const saved = await readFile(file);
    const damaged = Buffer.from(saved);
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 40) ^ 0xff, damaged.length - 40);
    await writeFile(file, damaged);
    expect(runLoader(main, cache)).toMatchObject({ exports: { value: "one" }, compiled: [main] });
    expect(runLoader(main, cache)).toMatchObject({ exports: { value: "one" }, compiled: [] });
    await writeFile(file, "hel-code-cache but cut short");
    expect(runLoader(main, cache)).toMatchObject({ exports: { value: "one" }, compiled: [main] });
  });

  it("runs the same when the cache directory cannot be made, or caching is off", async () => {
    const { main } = await chunks("one");
    const blocked = join(await tempProject(), "file");
    await writeFile(blocked, "a file where the cache directory would go");
    expect(runLoader(main, join(blocked, "cache"))).toMatchObject({ exports: { value: "one" } });
    expect(runLoader(main, null)).toMatchObject({ exports: { value: "one" } });
  });

  it("gives a chunk that requires its requirer the exports made so far, as Node does", async () => {
    const dir = await tempProject();
    await writeFile(join(dir, "a.cjs"), `exports.early = 1;\nconst b = require("./b.cjs");\nexports.fromB = b.sawEarly;\n`);
    await writeFile(join(dir, "b.cjs"), `exports.sawEarly = require("./a.cjs").early;\n`);
    expect(runLoader(join(dir, "a.cjs"), null).exports).toEqual({ early: 1, fromB: 1 });
  });
});

describe("the built hel", () => {
  it("writes its cache on the first run and uses it on the next", async () => {
    const cacheHome = await tempProject();
    const project = await tempProject();
    const env = { XDG_CACHE_HOME: cacheHome, NODE_DISABLE_COMPILE_CACHE: undefined };
    const first = await runHel({ args: ["-C", project, "--version"], env });
    expect(first.code).toBe(0);
    const dir = join(cacheHome, "hel", `node-${process.version}-${process.arch}`);
    // main.cjs, and the chunks it requires at once (the bundler may put the schema library in one of its own).
    const written = await readdir(dir);
    expect(written).toContainEqual(expect.stringMatching(/-main\.cjs\.cache$/));
    for (const name of written) expect(name).toMatch(/^[0-9a-f]+-[\w.-]+\.cjs\.cache$/);
    const mtimes = await Promise.all(written.map(async (name) => (await stat(join(dir, name))).mtimeMs));
    const second = await runHel({ args: ["-C", project, "--version"], env });
    expect(second.stdout).toBe(first.stdout);
    expect(await readdir(dir)).toEqual(written);
    expect(await Promise.all(written.map(async (name) => (await stat(join(dir, name))).mtimeMs))).toEqual(mtimes);
  });

  it("writes nothing with NODE_DISABLE_COMPILE_CACHE", async () => {
    const cacheHome = await tempProject();
    const run = await runHel({ args: ["--version"], env: { XDG_CACHE_HOME: cacheHome, NODE_DISABLE_COMPILE_CACHE: "1" } });
    expect(run.code).toBe(0);
    expect(await readdir(cacheHome)).toEqual([]);
  });
});

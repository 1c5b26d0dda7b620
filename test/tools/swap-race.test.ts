// Tools against a real racing process: a child exchanges a directory of the project with a symlink to
// a directory outside it, as fast as it can, while read_file and search_replace run on paths under that
// directory. Whatever the interleaving, nothing outside may be read, created or changed: a swap makes a
// call fail (the model is told to call again), never escape. That holds where directories can be
// addressed through /proc (Linux); elsewhere the fallback only narrows the window, so the test is Linux's.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { executeToolCall } from "../../src/tools/registry.js";
import { readFileTool } from "../../src/tools/file/read-file.js";
import { searchReplaceTool } from "../../src/tools/file/search-replace.js";
import type { Tool } from "../../src/tools/types.js";
import { toolProject } from "../helpers/tools.js";

const SWAPPER = fileURLToPath(new URL("../helpers/swap-child.mjs", import.meta.url));
const TOOLS = [readFileTool, searchReplaceTool] as Tool[];
const ROUNDS = 200;

describe.runIf(process.platform === "linux")("a directory swapped for a symlink to the outside while tools run", () => {
  it("never returns outside content, creates or edits nothing outside", async () => {
    const { ctx, dir, outside } = await toolProject();
    const sub = path.join(dir, "sub");
    await mkdir(sub);
    await writeFile(path.join(sub, "f.txt"), "inside\n");
    await writeFile(path.join(outside, "f.txt"), "OUTSIDE SECRET\n");
    await writeFile(path.join(outside, "outside-only.txt"), "OUTSIDE SECRET\n");
    for (let i = 0; i < ROUNDS; i++) {
      await writeFile(path.join(sub, `e-${i}.txt`), "edit me\n");
      await writeFile(path.join(outside, `e-${i}.txt`), "edit me\n");
    }
    const outsideBefore = (await readdir(outside)).sort();

    const stop = path.join(path.dirname(dir), "stop");
    const child = spawn(process.execPath, [SWAPPER, sub, outside, stop, "30000"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = once(child, "exit");
    await once(child.stdout, "data");

    const results: string[] = [];
    let calls = 0;
    const run = async (name: string, args: object) => {
      calls++;
      results.push((await executeToolCall({ id: `c${calls}`, type: "function", function: { name, arguments: JSON.stringify(args) } }, TOOLS, ctx)).content);
    };
    try {
      for (let i = 0; i < ROUNDS; i++) {
        await Promise.all([
          run("read_file", { path: "sub/f.txt" }),
          run("read_file", { path: "sub" }),
          run("search_replace", { path: `sub/e-${i}.txt`, old_text: "edit me", new_text: "edited" }),
          run("search_replace", { path: `sub/new-${i}.txt`, old_text: "", new_text: "created\n" }),
        ]);
      }
    } finally {
      await writeFile(stop, "");
      await exited;
    }
    const swaps = Number(out.trim().split("\n").at(-1));
    expect(swaps).toBeGreaterThan(0);

    const leaked = results.filter((r) => r.includes("OUTSIDE") || r.includes("outside-only")).length;
    const created = (await readdir(outside)).filter((name) => !outsideBefore.includes(name));
    let edited = 0;
    for (const name of outsideBefore) {
      if ((await readFile(path.join(outside, name), "utf8")) !== (name.startsWith("e-") ? "edit me\n" : "OUTSIDE SECRET\n")) edited++;
    }
    expect({ leaked, created, edited }).toEqual({ leaked: 0, created: [], edited: 0 });
    // The race was real: some calls met the swap and were refused, others got through inside.
    expect(results.some((r) => r.startsWith("Error:"))).toBe(true);
    expect(results.some((r) => r.startsWith("Edited sub/"))).toBe(true);
  });
});

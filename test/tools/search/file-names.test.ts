// File names that are not valid UTF-8, on a real temporary tree: grep and find_files see them, show each
// byte that is not part of a UTF-8 character as \xNN (as bash's $'…' writes it) and the rest as text,
// and walk into a directory so named.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findFilesTool, grepTool } from "../../../src/tools/search/tools.js";
import { toolProject } from "../../helpers/tools.js";

const bytes = (...parts: (string | Buffer | number[])[]) => Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p as string))));

async function project(): Promise<{ ctx: Awaited<ReturnType<typeof toolProject>>["ctx"]; dir: string }> {
  const { ctx, dir } = await toolProject();
  const badDir = bytes(dir, "/d", [0xfe]);
  mkdirSync(badDir);
  writeFileSync(bytes(badDir, "/bad", [0xff], ".txt"), "needle in a bad name\n");
  // Valid UTF-8 beside an invalid byte, and a real U+FFFD, which is shown as itself.
  writeFileSync(bytes(dir, "/é", [0xc3], ".txt"), "needle two\n");
  writeFileSync(path.join(dir, "ok\uFFFD.txt"), "needle three\n");
  return { ctx, dir };
}

describe("names that are not UTF-8", () => {
  it("find_files lists them, invalid bytes shown as \\xNN", async () => {
    const { ctx } = await project();
    const listed = (await findFilesTool.run({ pattern: "*.txt" }, ctx)).split("\n");
    expect(listed.slice(0, -1).sort()).toEqual(["d\\xfe/bad\\xff.txt", "ok\uFFFD.txt", "é\\xc3.txt"]);
  });

  it("grep searches them and shows them the same way", async () => {
    const { ctx } = await project();
    expect(await grepTool.run({ pattern: "needle" }, ctx)).toBe(["d\\xfe/bad\\xff.txt:1: needle in a bad name", "ok\uFFFD.txt:1: needle three", "é\\xc3.txt:1: needle two", "[3 matches in 3 files]"].join("\n"));
  });

  it("the shown name is the one bash's $'…' quoting opens", async () => {
    const { ctx, dir } = await project();
    const shown = (await findFilesTool.run({ pattern: "bad*" }, ctx)).split("\n")[0]!;
    expect(execFileSync("bash", ["-c", `cat $'${shown}'`], { cwd: dir, encoding: "utf8" })).toBe("needle in a bad name\n");
  });
});

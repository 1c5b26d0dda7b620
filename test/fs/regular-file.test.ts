// Reading a file a person or a project named: only a regular file, only up to a bound, and not
// through a symbolic link when asked; the same answers from the asynchronous and the synchronous read.
import { execFileSync } from "node:child_process";
import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readProblem, readRegularFile, readRegularFileSync } from "../../src/fs/regular-file.js";
import { tempProject } from "../helpers/temp-project.js";

const reads = {
  async: readRegularFile,
  sync: async (path: string, maxBytes: number, follow?: boolean) => readRegularFileSync(path, maxBytes, follow),
};

describe.each(Object.entries(reads))("%s", (_, read) => {
  it("reads a regular file, and refuses a FIFO, a directory, a file past the bound and, when asked, a link", async () => {
    const dir = await tempProject();
    await writeFile(join(dir, "a.md"), "hello");
    await symlink(join(dir, "a.md"), join(dir, "link.md"));
    execFileSync("mkfifo", [join(dir, "pipe")]);
    const problem = (path: string, max = 1024, follow = true) => read(join(dir, path), max, follow).then(() => "read", readProblem);
    expect(await read(join(dir, "a.md"), 5)).toBe("hello");
    expect(await read(join(dir, "link.md"), 5)).toBe("hello");
    expect(await problem("link.md", 5, false)).toBe("is a loop of symbolic links");
    expect(await problem("pipe")).toBe("is a FIFO, not a regular file");
    expect(await problem(".")).toBe("is a directory, not a regular file");
    expect(await problem("a.md", 4)).toBe("is larger than 0 KB");
  });
});

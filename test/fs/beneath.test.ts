// Walking beneath a directory without following links: with /proc (Linux) a swap after the walk cannot
// redirect anything; without it (the macOS fallback, forced here) verify() notices the swap.
import { mkdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { constants } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hasProcFd, openBeneath, PathChangedError } from "../../src/fs/beneath.js";
import { toolProject } from "../helpers/tools.js";

async function readThrough(dir: Awaited<ReturnType<typeof openBeneath>>, name: string): Promise<string> {
  const fh = await dir.open(name, constants.O_RDONLY);
  try {
    return await fh.readFile("utf8");
  } finally {
    await fh.close();
  }
}

describe.each([true, false])("openBeneath (through /proc: %s)", (viaProc) => {
  it("opens a directory chain and the files in it, making missing directories when asked", async () => {
    const { dir } = await toolProject();
    await mkdir(path.join(dir, "a", "b"), { recursive: true });
    await writeFile(path.join(dir, "a", "b", "f.txt"), "inside\n");
    const opened = await openBeneath(dir, ["a", "b"], false, viaProc);
    expect(await readThrough(opened, "f.txt")).toBe("inside\n");
    await opened.close();

    await expect(openBeneath(dir, ["new", "deep"], false, viaProc)).rejects.toMatchObject({ code: "ENOENT" });
    const made = await openBeneath(dir, ["new", "deep"], true, viaProc);
    await writeFile(made.entry("g.txt"), "made\n");
    await made.close();
    expect(await readFile(path.join(dir, "new", "deep", "g.txt"), "utf8")).toBe("made\n");
  });

  it("refuses a symlink on the way or at the end, and tells it from a file in the way", async () => {
    const { dir, outside } = await toolProject();
    await writeFile(path.join(outside, "f.txt"), "OUTSIDE\n");
    await symlink(outside, path.join(dir, "link"));
    await symlink(path.join(outside, "f.txt"), path.join(dir, "file-link"));
    await writeFile(path.join(dir, "plain"), "x");
    await expect(openBeneath(dir, ["link"], false, viaProc)).rejects.toThrow(PathChangedError);
    await expect(openBeneath(dir, ["link"], true, viaProc)).rejects.toThrow(PathChangedError);
    const root = await openBeneath(dir, [], false, viaProc);
    await expect(root.open("file-link", constants.O_RDONLY)).rejects.toThrow(PathChangedError);
    await expect(root.child("plain")).rejects.toMatchObject({ code: "ENOTDIR" });
    await root.close();
  });

  it("does not follow a swap made after the walk", async () => {
    const { dir, outside } = await toolProject();
    await mkdir(path.join(dir, "sub"));
    await writeFile(path.join(dir, "sub", "f.txt"), "inside\n");
    await writeFile(path.join(outside, "f.txt"), "OUTSIDE\n");
    const opened = await openBeneath(dir, ["sub"], false, viaProc);
    await rename(path.join(dir, "sub"), path.join(dir, "sub.old"));
    await symlink(outside, path.join(dir, "sub"));
    if (viaProc) {
      // The open directory is still the one that was checked, wherever it now sits.
      expect(await readThrough(opened, "f.txt")).toBe("inside\n");
    } else {
      await expect(opened.verify()).rejects.toThrow(PathChangedError);
      await expect(opened.open("f.txt", constants.O_RDONLY)).rejects.toThrow(PathChangedError);
    }
    await opened.close();
  });
});

describe("hasProcFd", () => {
  it.runIf(process.platform === "linux")("is true on Linux, where the tools rely on it", async () => {
    expect(await hasProcFd()).toBe(true);
  });
});

// The one reader beneath a root: no symlink on the way or as the file (unless the user's own is
// followed), only a regular file of bounded size, never blocking on a FIFO.
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { PathChangedError } from "../../src/fs/beneath.js";
import { FileRefused } from "../../src/fs/regular-file.js";
import { OpenFolder } from "../../src/resources/read-beneath.js";
import { tempProject } from "../helpers/temp-project.js";

it("reads a bounded regular file beneath the root, and refuses a link on the way, a linked file, a FIFO and a file past the bound", async () => {
  const root = await tempProject();
  const elsewhere = await tempProject();
  await mkdir(join(root, ".hel", "agents"), { recursive: true });
  await writeFile(join(root, ".hel", "agents", "a.md"), "agent a");
  await writeFile(join(elsewhere, "b.md"), "outside");
  await symlink(join(elsewhere, "b.md"), join(root, ".hel", "agents", "b.md"));
  execFileSync("mkfifo", [join(root, ".hel", "agents", "fifo.md")]);
  await symlink(elsewhere, join(root, "linked"));
  const folder = OpenFolder.open(root, [".hel", "agents"]);
  try {
    expect(folder.read("a.md", 64)).toBe("agent a");
    expect(folder.read("none.md", 64)).toBeNull();
    expect(() => folder.read("a.md", 3)).toThrow(FileRefused);
    expect(() => folder.read("b.md", 64)).toThrow(expect.objectContaining({ code: "ELOOP" }));
    // The user's own files may be links.
    expect(folder.read("b.md", 64, true)).toBe("outside");
    expect(() => folder.read("fifo.md", 64)).toThrow(new FileRefused("is a FIFO, not a regular file"));
  } finally {
    folder.close();
  }
  expect(() => OpenFolder.open(root, ["linked"])).toThrow(PathChangedError);
  // The root itself is where the caller trusts the path to lead: a user's folder may be a link.
  const user = OpenFolder.open(join(root, "linked"));
  expect(user.read("b.md", 64)).toBe("outside");
  user.close();
});

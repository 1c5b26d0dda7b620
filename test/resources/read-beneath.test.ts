// The one reader beneath a root: no symlink on the way or as the file (unless the user's own is
// followed, or, for rules and command files, one whose real target stays within bounds), only a
// regular file of bounded size, never blocking on a FIFO.
import { execFileSync } from "node:child_process";
import { mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { PathChangedError } from "../../src/fs/beneath.js";
import { FileRefused } from "../../src/fs/regular-file.js";
import { LinkRefused, OpenFolder, readWithin } from "../../src/resources/read-beneath.js";
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

it("follows a symlink whose real target stays within bounds, and refuses one leading out, into what is off limits, or nowhere", async () => {
  const root = await tempProject();
  const elsewhere = await tempProject();
  await mkdir(join(root, "docs", "commands"), { recursive: true });
  await mkdir(join(root, ".hel"));
  await writeFile(join(root, "docs", "rules.md"), "inside");
  await writeFile(join(root, ".hel", "state.json"), "hel's own");
  await writeFile(join(elsewhere, "secret"), "outside");
  await symlink("docs/rules.md", join(root, "inside.md"));
  await symlink(join(elsewhere, "secret"), join(root, "out.md"));
  await symlink(".hel/state.json", join(root, "hel.md"));
  await symlink("missing.md", join(root, "dangling.md"));
  await symlink("../rules.md", join(root, "docs", "commands", "up.md"));
  const offLimits = [join(root, ".hel")];
  expect(readWithin(root, "inside.md", 64, { offLimits })).toBe("inside");
  expect(readWithin(root, "none.md", 64, { offLimits })).toBeNull();
  expect(() => readWithin(root, "out.md", 64, { offLimits })).toThrow(new LinkRefused("out", join(elsewhere, "secret")));
  expect(() => readWithin(root, "hel.md", 64, { offLimits })).toThrow(new LinkRefused("off-limits", join(root, ".hel", "state.json")));
  // A path into what is off limits is refused whether or not anything is there.
  expect(() => readWithin(root, ".hel/none.md", 64, { offLimits })).toThrow(expect.objectContaining({ kind: "off-limits" }));
  expect(() => readWithin(root, "dangling.md", 64)).toThrow(new LinkRefused("dangling", join(root, "dangling.md")));
  // Within a folder beneath the root, a link to elsewhere in the root leads out.
  expect(readWithin(root, "docs/commands/up.md", 64)).toBe("inside");
  expect(() => readWithin(root, "docs/commands/up.md", 64, { within: join(root, "docs", "commands") })).toThrow(new LinkRefused("out", join(root, "docs", "rules.md")));
  // Followed or not, what is read is a bounded regular file.
  expect(() => readWithin(root, "inside.md", 3)).toThrow(FileRefused);
  expect(() => readWithin(root, "docs", 64)).toThrow(new FileRefused("is a directory, not a regular file"));
});

it("reads what was checked or nothing: a link put in place of the file or of a folder after the check is not followed", async () => {
  const root = await tempProject();
  const elsewhere = await tempProject();
  await mkdir(join(root, "docs"));
  await writeFile(join(root, "docs", "rules.md"), "inside");
  await symlink("docs/rules.md", join(root, "HEL.md"));
  await writeFile(join(elsewhere, "rules.md"), "outside");
  const folder = OpenFolder.open(root);
  try {
    // The link is checked, and its real path is what is walked.
    const names = folder.locate("HEL.md");
    expect(names).toEqual(["docs", "rules.md"]);
    expect(folder.readReached(names!, 64)).toBe("inside");
    // The file swapped for a link out after the check.
    await rename(join(root, "docs", "rules.md"), join(root, "docs", "kept.md"));
    await symlink(join(elsewhere, "rules.md"), join(root, "docs", "rules.md"));
    expect(() => folder.readReached(names!, 64)).toThrow(PathChangedError);
    // A folder on the way swapped for a link out after the check.
    await rm(join(root, "docs", "rules.md"));
    await rename(join(root, "docs"), join(root, "docs-was"));
    await symlink(elsewhere, join(root, "docs"));
    expect(() => folder.readReached(names!, 64)).toThrow(PathChangedError);
    // Checked again, the same path is refused for where it leads now.
    expect(() => folder.locate("HEL.md")).toThrow(new LinkRefused("out", join(elsewhere, "rules.md")));
  } finally {
    folder.close();
  }
});

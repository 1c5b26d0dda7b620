import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pathScope, projectRelative, resolveToolPath } from "../../src/tools/paths.js";
import { readFileTool } from "../../src/tools/file/read-file.js";
import { ToolError, type ToolContext } from "../../src/tools/types.js";
import { toolProject, withPolicy } from "../helpers/tools.js";

describe("resolveToolPath", () => {
  it("resolves relative paths and absolute paths inside the project", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, "src"));
    await writeFile(path.join(dir, "src", "a.ts"), "x");
    expect(await resolveToolPath(pathScope(ctx), "src/a.ts", "read")).toBe(path.join(dir, "src", "a.ts"));
    expect(await resolveToolPath(pathScope(ctx), path.join(dir, "src", "a.ts"), "write")).toBe(path.join(dir, "src", "a.ts"));
    expect(await resolveToolPath(pathScope(ctx), "src/../src/./a.ts", "read")).toBe(path.join(dir, "src", "a.ts"));
    expect(await resolveToolPath(pathScope(ctx), ".", "read")).toBe(dir);
  });

  it("allows a file to be created under directories that do not exist yet", async () => {
    const { ctx, dir } = await toolProject();
    expect(await resolveToolPath(pathScope(ctx), "new/deep/file.txt", "write")).toBe(path.join(dir, "new", "deep", "file.txt"));
  });

  it("refuses .. escapes, saying paths must be inside the project directory", async () => {
    const { ctx } = await toolProject();
    const refusal = resolveToolPath(pathScope(ctx), "../outside/x.txt", "read");
    await expect(refusal).rejects.toThrow(ToolError);
    await expect(refusal).rejects.toThrow(/outside the project directory.*Paths must be inside the project directory/);
    await expect(resolveToolPath(pathScope(ctx), "src/../../x", "write")).rejects.toThrow(ToolError);
  });

  it("refuses absolute paths outside, suggesting the project-relative form", async () => {
    const { ctx } = await toolProject();
    await expect(resolveToolPath(pathScope(ctx), "/etc/passwd", "read")).rejects.toThrow(/outside the project directory.*write "etc\/passwd"/);
  });

  it("refuses symlinks that lead out, for existing and new files", async () => {
    const { ctx, dir, outside } = await toolProject();
    await writeFile(path.join(outside, "secret.txt"), "s");
    await symlink(outside, path.join(dir, "out"));
    await symlink(path.join(outside, "secret.txt"), path.join(dir, "secret-link"));
    await expect(resolveToolPath(pathScope(ctx), "out/secret.txt", "read")).rejects.toThrow(/through a symlink/);
    await expect(resolveToolPath(pathScope(ctx), "out/new.txt", "write")).rejects.toThrow(/through a symlink/);
    await expect(resolveToolPath(pathScope(ctx), "secret-link", "read")).rejects.toThrow(/through a symlink/);
  });

  it("refuses dangling symlinks, which writing would follow anywhere", async () => {
    const { ctx, dir, outside } = await toolProject();
    await symlink(path.join(outside, "missing", "dir"), path.join(dir, "dangling"));
    await expect(resolveToolPath(pathScope(ctx), "dangling/file.txt", "write")).rejects.toThrow(/symlink whose target does not exist/);
    await expect(resolveToolPath(pathScope(ctx), "dangling", "write")).rejects.toThrow(ToolError);
  });

  it("follows symlinks that stay inside the project", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, "real"));
    await writeFile(path.join(dir, "real", "f.txt"), "x");
    await symlink(path.join(dir, "real"), path.join(dir, "alias"));
    expect(await resolveToolPath(pathScope(ctx), "alias/f.txt", "read")).toBe(path.join(dir, "real", "f.txt"));
  });

  it("refuses .hel/, also through a symlink", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(ctx.session.dir), { recursive: true });
    await writeFile(path.join(ctx.session.dir, "snapshot.json"), "{}");
    await symlink(path.join(dir, ".hel"), path.join(dir, "hel-link"));
    await expect(resolveToolPath(pathScope(ctx), ".hel/sessions/s1/snapshot.json", "read")).rejects.toThrow(/is in \.hel\/.*off limits.*Paths must be inside the project directory/);
    await expect(resolveToolPath(pathScope(ctx), ".hel", "read")).rejects.toThrow(ToolError);
    await expect(resolveToolPath(pathScope(ctx), ".hel/new.txt", "write")).rejects.toThrow(ToolError);
    await expect(resolveToolPath(pathScope(ctx), "hel-link/sessions/s1/snapshot.json", "read")).rejects.toThrow(ToolError);
  });

  it("refuses .hel/ when .hel itself is a symlink to elsewhere in the project", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, "state"));
    await writeFile(path.join(dir, "state", "snapshot.json"), "{}");
    await symlink(path.join(dir, "state"), path.join(dir, ".hel"));
    await expect(resolveToolPath(pathScope(ctx), ".hel/snapshot.json", "read")).rejects.toThrow(/is in \.hel\//);
  });

  it("lets the current session's spill files be read, not written", async () => {
    const { ctx, dir } = await toolProject();
    const spill = path.join(ctx.session.dir, "spill");
    await mkdir(spill, { recursive: true });
    await writeFile(path.join(spill, "r.txt"), "whole result");
    expect(await resolveToolPath(pathScope(ctx), ".hel/sessions/s1/spill/r.txt", "read")).toBe(path.join(spill, "r.txt"));
    await expect(resolveToolPath(pathScope(ctx), ".hel/sessions/s1/spill/r.txt", "write")).rejects.toThrow(/read-only/);
    await expect(resolveToolPath(pathScope(ctx), ".hel/sessions/s1/spill/new.txt", "write")).rejects.toThrow(ToolError);

    const other = path.join(dir, ".hel", "sessions", "s2", "spill");
    await mkdir(other, { recursive: true });
    await writeFile(path.join(other, "r.txt"), "another session's");
    await expect(resolveToolPath(pathScope(ctx), ".hel/sessions/s2/spill/r.txt", "read")).rejects.toThrow(ToolError);
  });

  it("refuses an empty path", async () => {
    const { ctx } = await toolProject();
    await expect(resolveToolPath(pathScope(ctx), "  ", "read")).rejects.toThrow(/empty/);
  });
});

describe("projectRelative", () => {
  it("gives the form the model should write", async () => {
    const { ctx, dir } = await toolProject();
    expect(projectRelative(pathScope(ctx), "./src//a.ts")).toBe("src/a.ts");
    expect(projectRelative(pathScope(ctx), path.join(dir, "src", "a.ts"))).toBe("src/a.ts");
    expect(projectRelative(pathScope(ctx), dir)).toBe(".");
  });
});

describe("a .hel that is a symlink", () => {
  it("keeps the directory it points to off limits too, except this session's spill", async () => {
    const { ctx, dir } = await toolProject();
    await mkdir(path.join(dir, "state", "sessions", "other"), { recursive: true });
    await writeFile(path.join(dir, "state", "sessions", "other", "snapshot.json"), "{}");
    await rm(path.join(dir, ".hel"), { recursive: true, force: true });
    await symlink("state", path.join(dir, ".hel"));
    await expect(resolveToolPath(pathScope(ctx), "state/sessions/other/snapshot.json", "read")).rejects.toThrow(/\.hel\/.*off limits/);
    await expect(resolveToolPath(pathScope(ctx), "state/sessions/other/snapshot.json", "write")).rejects.toThrow(/off limits/);
  });
});

describe("the listed skill folders", () => {
  /** A project whose context lists a skill folder of the user's (outside it) and one in .hel/skills/. */
  async function withSkills() {
    const tp = await toolProject();
    const user = path.join(tp.outside, "skills", "deploy");
    const own = path.join(tp.dir, ".hel", "skills", "lint");
    await mkdir(path.join(user, "scripts"), { recursive: true });
    await mkdir(own, { recursive: true });
    await mkdir(path.join(tp.dir, ".hel", "sessions", "s1"), { recursive: true });
    await writeFile(path.join(user, "SKILL.md"), "---\nname: deploy\n---\nrun scripts/ship.sh\n");
    await writeFile(path.join(user, "scripts", "ship.sh"), "echo ship\n");
    await writeFile(path.join(tp.outside, "skills", "secret.txt"), "next to the skill\n");
    await writeFile(path.join(tp.outside, "secret.txt"), "outside\n");
    await writeFile(path.join(own, "SKILL.md"), "lint first\n");
    await writeFile(path.join(tp.dir, ".hel", "sessions", "s1", "snapshot.json"), "{}");
    const ctx = withPolicy(tp.ctx, {
      skillDirs: [
        { dir: user, real: user },
        { dir: own, real: own },
      ],
    });
    return { ...tp, ctx, user };
  }
  /** The page's lines, without read_file's line numbers. */
  const read = async (ctx: ToolContext, p: string) => (await readFileTool.run({ path: p }, ctx)).replace(/^ *\d+\t/gm, "");

  it("read_file reads a user's skill through its listed path, and the files in its folder", async () => {
    const { ctx, user, outside } = await withSkills();
    expect(await read(ctx, path.join(user, "SKILL.md"))).toBe("---\nname: deploy\n---\nrun scripts/ship.sh");
    expect(await read(ctx, path.join(user, "scripts", "ship.sh"))).toBe("echo ship");
    expect(await read(ctx, ".hel/skills/lint/SKILL.md")).toBe("lint first");
    // A user's skill folder may be a symlink: it is read under its listed path, within its real folder.
    const linked = path.join(outside, "linked");
    await symlink(user, linked);
    const viaLink = withPolicy(ctx, { skillDirs: [{ dir: linked, real: user }] });
    expect(await read(viaLink, path.join(linked, "scripts", "ship.sh"))).toBe("echo ship");
  });

  it("nothing next to a skill folder, no symlink out of it, and nothing else in .hel/ is readable", async () => {
    const { ctx, user, outside } = await withSkills();
    await symlink(path.join(outside, "secret.txt"), path.join(user, "link.txt"));
    await symlink(outside, path.join(user, "out"));
    await expect(read(ctx, path.join(outside, "skills", "secret.txt"))).rejects.toThrow(/outside the project directory/);
    await expect(read(ctx, path.join(user, "link.txt"))).rejects.toThrow(/leads out of the skill folder .* through a symlink/);
    await expect(read(ctx, path.join(user, "out", "secret.txt"))).rejects.toThrow(/leads out of the skill folder/);
    await expect(read(ctx, ".hel/sessions/s1/snapshot.json")).rejects.toThrow(/in \.hel\/, hel's own state/);
    await expect(read(ctx, ".hel/skills/lint/../../sessions/s1/snapshot.json")).rejects.toThrow(/in \.hel\/, hel's own state/);
    // Reading is all a skill folder allows.
    await expect(resolveToolPath(pathScope(ctx), path.join(user, "new.txt"), "write")).rejects.toThrow(/outside the project directory/);
    await expect(resolveToolPath(pathScope(ctx), ".hel/skills/lint/SKILL.md", "write")).rejects.toThrow(/off limits/);
    // Without the listing, the same paths are refused.
    await expect(read(withPolicy(ctx, { skillDirs: [] }), path.join(user, "SKILL.md"))).rejects.toThrow(/outside the project directory/);
  });
});

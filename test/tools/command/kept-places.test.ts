// What stays read-only to a sandboxed command beyond the project's own `.hel/` and git's settings,
// proved with real commands in bubblewrap, as root: a `.hel` at any depth, existing or made by the
// command (also after moving the folder that held one aside); the files trusted programs run (the
// read-only paths the caller names); and the user's config folder and shell start-up files, even with
// the home folder inside the project. Under --access full the same writes work, so the refusals are
// the sandbox's.
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCommandTool } from "../../../src/tools/command/run-command.js";
import type { ToolContext } from "../../../src/tools/types.js";
import { toolProject } from "../../helpers/tools.js";

const run = (ctx: ToolContext, command: string) => runCommandTool.run({ command }, ctx);
/** A shell line that tries to write each file and says which it could. */
const tryWrites = (files: string[]) => files.map((f) => `(echo planted > ${f}) 2>/dev/null && echo "${f} written" || echo "${f} refused"`).join("; ");

const savedHome = process.env.HOME;
afterEach(() => {
  process.env.HOME = savedHome;
});

describe.runIf(process.platform === "linux")("places kept read-only in the sandbox", () => {
  it("every .hel at any depth: existing ones cannot be written, new ones are removed after the command", async () => {
    const { ctx, dir } = await toolProject("edit");
    for (const d of ["sub/.hel", "a/b/.hel", "node_modules/pkg/.hel"]) await mkdir(path.join(dir, d, "sessions"), { recursive: true });
    const existing = ["sub/.hel/config.json", "a/b/.hel/sessions/x", "node_modules/pkg/.hel/config.json"];
    const out = await run(ctx, `${tryWrites(existing)}; mkdir -p new/.hel/checkpoints deep/er/.hel && echo x > new/.hel/config.json && echo x > deep/er/.hel/config.json && echo made`);
    expect(out.split("\n").slice(1)).toEqual(["Some places are read-only to commands, so what the command made there was undone: new/.hel removed; deep/er/.hel removed.", ...existing.map((f) => `${f} refused`), "made"]);
    for (const f of existing) expect(existsSync(path.join(dir, f))).toBe(false);
    expect(existsSync(path.join(dir, "new", ".hel"))).toBe(false);
    expect(existsSync(path.join(dir, "deep", "er", ".hel"))).toBe(false);
    expect(existsSync(path.join(dir, "deep", "er"))).toBe(true);

    ctx.policy.access = "full";
    await run(ctx, `${tryWrites(["sub/.hel/config.json"])}; mkdir -p new/.hel`);
    expect(existsSync(path.join(dir, "sub", ".hel", "config.json"))).toBe(true);
    expect(existsSync(path.join(dir, "new", ".hel"))).toBe(true);
  });

  it("a .hel put where one was, after moving its folder aside, is removed; the moved one is left as it was", async () => {
    const { ctx, dir } = await toolProject("edit");
    await mkdir(path.join(dir, "sub", ".hel"), { recursive: true });
    await writeFile(path.join(dir, "sub", ".hel", "memo"), "hel's own\n");
    const out = await run(ctx, "mv sub moved && mkdir -p sub/.hel && echo planted > sub/.hel/config.json && echo swapped");
    expect(out).toContain("swapped");
    expect(out.split("\n")[1]).toBe("Some places are read-only to commands, so what the command made there was undone: sub/.hel removed.");
    expect(existsSync(path.join(dir, "sub", ".hel"))).toBe(false);
    expect(await readFile(path.join(dir, "moved", ".hel", "memo"), "utf8")).toBe("hel's own\n");
  });

  it("the read-only paths it is given (the files trusted programs run) cannot be written, removed or swapped", async () => {
    const { ctx, dir } = await toolProject("edit");
    await mkdir(path.join(dir, "tools"), { recursive: true });
    await mkdir(path.join(dir, "node_modules", ".bin"), { recursive: true });
    await writeFile(path.join(dir, "tools", "hook.sh"), "echo trusted\n");
    await writeFile(path.join(dir, "node_modules", ".bin", "prettier"), "trusted\n");
    ctx.policy.readOnlyPaths = [path.join(dir, "tools", "hook.sh"), path.join(dir, "node_modules", ".bin", "prettier"), path.join(dir, "missing.sh")];
    const out = await run(ctx, `${tryWrites(["tools/hook.sh", "node_modules/.bin/prettier", "missing.sh"])}; rm -f node_modules/.bin/prettier 2>/dev/null || echo remove refused`);
    expect(out.split("\n").slice(1)).toEqual([
      "Some places are read-only to commands, so what the command made there was undone: missing.sh removed.",
      "tools/hook.sh refused",
      "node_modules/.bin/prettier refused",
      "missing.sh written",
      "remove refused",
    ]);
    expect(existsSync(path.join(dir, "missing.sh"))).toBe(false);
    expect(await readFile(path.join(dir, "tools", "hook.sh"), "utf8")).toBe("echo trusted\n");

    const swapped = await run(ctx, "mv tools aside && mkdir tools && echo planted > tools/hook.sh && echo swapped");
    expect(swapped).toContain("swapped");
    expect(swapped).toContain("what the command made there was undone: tools/hook.sh removed.");
    expect(existsSync(path.join(dir, "tools", "hook.sh"))).toBe(false);
    expect(await readFile(path.join(dir, "aside", "hook.sh"), "utf8")).toBe("echo trusted\n");

    ctx.policy.access = "full";
    expect(await run(ctx, tryWrites(["node_modules/.bin/prettier"]))).toContain("written");
  });

  it("with the home folder in the project, the user's config folder and shell start-up files are never writable", async () => {
    const { ctx, dir } = await toolProject("edit");
    process.env.HOME = dir;
    const config = path.join(dir, ".config", "hel");
    await mkdir(config, { recursive: true });
    await writeFile(path.join(config, "config.json"), "{}\n");
    await writeFile(path.join(dir, ".bashrc"), "# the user's\n");
    await writeFile(path.join(dir, "profile.real"), "# the user's profile\n");
    await symlink("profile.real", path.join(dir, ".profile"));
    ctx.policy.readOnlyPaths = [config];
    const out = await run(
      ctx,
      `${tryWrites([".config/hel/config.json", ".bashrc", ".profile", ".zshrc", ".bash_profile"])}; mkdir -p .config/fish && echo x > .config/fish/config.fish; rm -f .profile && echo x > .profile && echo replaced`,
    );
    expect(out.split("\n").slice(2)).toEqual([".config/hel/config.json refused", ".bashrc refused", ".profile refused", ".zshrc written", ".bash_profile written", "replaced"]);
    const undone = out.split("\n")[1]!;
    expect(undone).toMatch(/^Some places are read-only to commands, so what the command made there was undone: /);
    for (const note of [".zshrc removed", ".bash_profile removed", ".config/fish removed", ".profile put back"]) expect(undone).toContain(note);
    for (const made of [".zshrc", ".bash_profile", ".config/fish"]) expect(existsSync(path.join(dir, made))).toBe(false);
    expect(await readFile(path.join(dir, ".profile"), "utf8")).toBe("# the user's profile\n");
    expect(await readFile(path.join(dir, ".bashrc"), "utf8")).toBe("# the user's\n");
    expect(await readFile(path.join(config, "config.json"), "utf8")).toBe("{}\n");
  });
});

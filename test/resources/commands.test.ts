import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { slashCommandsOf } from "../../src/cli/command-files.js";
import { isBuiltInCommand, type SlashContext } from "../../src/cli/slash-commands.js";
import { loadCommandFiles } from "../../src/resources/commands.js";
import { tempProject } from "../helpers/temp-project.js";

/** What a command sends, or says instead, given `args`. */
async function runCommand(command: { run: (ctx: SlashContext, args: string) => unknown }, args: string): Promise<{ sent: string[]; said: string[] }> {
  const sent: string[] = [];
  const said: string[] = [];
  await command.run({ send: (t: string) => sent.push(t), say: (l: string[]) => said.push(...l) } as unknown as SlashContext, args);
  return { sent, said };
}

/** A project and a user's hel folder, each with its commands folder. */
async function commandFolders(): Promise<{ project: string; user: string }> {
  const project = await tempProject();
  const user = await realpath(await tempProject());
  await mkdir(join(project, ".hel", "commands"), { recursive: true });
  await mkdir(join(user, "commands"));
  return { project, user };
}

describe("loadCommandFiles", () => {
  it("the project's files and the user's, the project's first; bad ones are skipped with one warning each", async () => {
    const { project, user } = await commandFolders();
    await writeFile(join(project, ".hel", "commands", "fix.md"), "Fix $ARGUMENTS, then run the tests on $ARGUMENTS.\n");
    await writeFile(join(project, ".hel", "commands", "plain.md"), "---\ndescription: a plain one\n---\nExplain the build.\n");
    await writeFile(join(user, "commands", "plain.md"), "Not used: the project has /plain.\n");
    await writeFile(join(user, "commands", "empty.md"), "---\ndescription: nothing\n---\n");
    await writeFile(join(project, ".hel", "commands", "Bad_Name.md"), "x");
    await writeFile(join(project, ".hel", "commands", "broken.md"), "---\ndescription: [a, b]\n---\nx");
    await writeFile(join(project, ".hel", "commands", "exit.md"), "x");
    await writeFile(join(project, ".hel", "commands", "notes.txt"), "not a command");
    const loaded = await loadCommandFiles({ projectDir: project, userDir: user, reserved: isBuiltInCommand });
    const warnings = loaded.diagnostics.map((d) => d.problem);
    expect(loaded.diagnostics.map((d) => d.file)).toEqual([".hel/commands/Bad_Name.md", ".hel/commands/broken.md", ".hel/commands/exit.md"]);
    const commands = slashCommandsOf(loaded.commands);
    expect(commands.map((c) => [c.name, c.args, c.summary])).toEqual([
      ["empty", undefined, "nothing"],
      ["fix", "[args]", "(.hel/commands/fix.md)"],
      ["plain", undefined, "a plain one"],
    ]);
    expect(warnings).toEqual([
      "the command file .hel/commands/Bad_Name.md has a name that is not lowercase letters, digits and hyphens, starting with a letter, so it is skipped — fix it or remove it",
      'the command file .hel/commands/broken.md has a bad "description" in its front matter: it must be text, so it is skipped — fix it or remove it',
      "the command file .hel/commands/exit.md would hide hel's own /exit, so it is skipped — rename it",
    ]);
    const [empty, fix, plain] = commands;
    expect(await runCommand(fix!, "src/a.ts")).toEqual({ sent: ["Fix src/a.ts, then run the tests on src/a.ts."], said: [] });
    // Without $ARGUMENTS, what follows the name comes after the text.
    expect(await runCommand(plain!, "for CI")).toEqual({ sent: ["Explain the build.\n\nfor CI"], said: [] });
    expect(await runCommand(plain!, "")).toEqual({ sent: ["Explain the build."], said: [] });
    expect(await runCommand(empty!, "")).toEqual({ sent: [], said: [`${join(user, "commands", "empty.md")} has no text to send`] });
  });

  it("a project's file wins its name even when it is bad: the user's of that name is not read (precedence.ts)", async () => {
    const { project, user } = await commandFolders();
    await writeFile(join(project, ".hel", "commands", "review.md"), "---\ndescription: [a, b]\n---\nx");
    await writeFile(join(user, "commands", "review.md"), "Review the diff.\n");
    const loaded = await loadCommandFiles({ projectDir: project, userDir: user, reserved: () => false });
    expect(loaded.commands).toEqual([]);
    expect(loaded.diagnostics.map((d) => d.file)).toEqual([".hel/commands/review.md"]);
  });

  it("a file may be a symlink within its folder; one leading out of it is skipped, in the words of the tools' path rules", async () => {
    const { project, user } = await commandFolders();
    const elsewhere = await tempProject();
    const projectFolder = join(project, ".hel", "commands");
    const userFolder = join(user, "commands");
    await writeFile(join(projectFolder, "fix.md"), "Fix it.\n");
    await symlink("fix.md", join(projectFolder, "alias.md"));
    await writeFile(join(project, "docs.md"), "In the project, not in its commands folder.\n");
    await symlink(join(project, "docs.md"), join(projectFolder, "docs.md"));
    await writeFile(join(elsewhere, "out.md"), "Outside.\n");
    await symlink(join(elsewhere, "out.md"), join(projectFolder, "out.md"));
    await symlink(join(elsewhere, "out.md"), join(userFolder, "mine.md"));
    const loaded = await loadCommandFiles({ projectDir: project, userDir: user, reserved: () => false });
    expect(loaded.commands.map((c) => [c.name, c.body])).toEqual([
      ["alias", "Fix it."],
      ["fix", "Fix it."],
    ]);
    const given = (folder: string, file: string) => JSON.stringify(join(folder, file));
    expect(loaded.diagnostics.map((d) => d.problem)).toEqual([
      `the command file .hel/commands/docs.md cannot be used: ${given(projectFolder, "docs.md")} is in .hel/, hel's own state: it is off limits to tools, so it is skipped — fix it or remove it`,
      `the command file .hel/commands/out.md cannot be used: ${given(projectFolder, "out.md")} leads outside the project directory through a symlink (to ${join(elsewhere, "out.md")}), so it is skipped — fix it or remove it`,
      `the command file ${join(userFolder, "mine.md")} cannot be used: ${given(userFolder, "mine.md")} leads out of the skill folder ${userFolder} through a symlink (to ${join(elsewhere, "out.md")}), so it is skipped — fix it or remove it`,
    ]);
  });
});

// Loading the named agents: the user's folder and the project's `.hel/agents/`, the project's agent
// winning on a name, sorted by name; a file that is not a valid agent, or a link in the project's
// folder, is skipped with one diagnostic naming the file and the problem; access is clamped; the API key
// is masked in what goes into requests.
import { mkdir, readFile, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { NamedAgent } from "../../src/agent/children/named-agent.js";
import { memoFile, memoSaves } from "../../src/fs/file-memo.js";
import { loadNamedAgents, type AgentsSettings } from "../../src/resources/agents.js";
import { tempProject } from "../helpers/temp-project.js";

/** The agents loaded, each diagnostic's line given to `warn`, as the terminal prints it. */
function loadWarning({ warn, ...settings }: AgentsSettings & { warn(line: string): void }): NamedAgent[] {
  const { agents, diagnostics } = loadNamedAgents(settings);
  for (const d of diagnostics) warn(d.problem);
  return agents;
}

async function files(dir: string, entries: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(entries)) await writeFile(join(dir, name), text);
}

it("reads both folders, the project's agent winning, and skips what is not an agent with one warning each", async () => {
  const project = await tempProject();
  const home = await tempProject();
  const outside = join(home, "outside.md");
  await writeFile(outside, "---\ndescription: from outside the project\n---\n");
  const agents = join(project, ".hel", "agents");
  await files(join(home, "hel", "agents"), {
    "shared.md": "---\ndescription: the user's\n---\nUser body.\n",
    "mine.md": "---\ndescription: only the user's\ntools: read_file, grep\nmax-steps: 4\naccess: read-only\n---\nKey sk-secret-1 here.\n",
  });
  await files(agents, {
    "shared.md": "---\ndescription: the project's\nmode: no-tools\n---\nProject body.\n",
    "notes.txt": "not an agent",
    "nodesc.md": "---\nmode: full\n---\n",
    "typo.md": "---\ndescription: x\nmax_steps: 3\n---\n",
    "badtool.md": "---\ndescription: x\ntools: [read_file, rm_rf]\n---\n",
    "steps.md": "---\ndescription: x\nmax-steps: many\n---\n",
    "wide.md": "---\ndescription: wants it all\naccess: full\n---\n",
    "other.md": "---\nname: someone-else\ndescription: x\n---\n",
  });
  await symlink(outside, join(agents, "linked.md"));
  const warnings: string[] = [];
  const loaded = loadWarning({ projectDir: project, userDir: join(home, "hel"), access: "edit", secrets: ["sk-secret-1"], warn: (l) => warnings.push(l) });
  expect(loaded).toEqual([
    { name: "mine", description: "only the user's", mode: "task-only", tools: ["read_file", "grep"], model: null, maxSteps: 4, access: "read-only", instructions: "Key [REDACTED] here." },
    { name: "shared", description: "the project's", mode: "no-tools", tools: null, model: null, maxSteps: null, access: null, instructions: "Project body." },
    { name: "wide", description: "wants it all", mode: "task-only", tools: null, model: null, maxSteps: null, access: "edit", instructions: "" },
  ]);
  const file = (name: string) => join(agents, name);
  expect(warnings).toEqual([
    `the agent file ${file("badtool.md")} is skipped: tools must name tools hel offers: read_file, search_replace, run_command, grep, find_files, fold, recall, ask, todo, job_output, job_kill, delegate_task, review_changes — fix it or remove it`,
    `the agent file ${file("linked.md")} is a symbolic link, which hel does not follow in a project's .hel/agents/ — the agent is skipped`,
    `the agent file ${file("nodesc.md")} is skipped: description is missing: say what the agent is for, so the parent knows when to pick it — fix it or remove it`,
    `the agent file ${file("other.md")} is skipped: name says "someone-else", but the file names the agent "other" — fix it or remove it`,
    `the agent file ${file("steps.md")} is skipped: max-steps must be a whole number — fix it or remove it`,
    `the agent file ${file("typo.md")} is skipped: the key max_steps is unknown (the keys are name, description, mode, tools, model, max-steps, access) — fix it or remove it`,
    `the agent wide (${file("wide.md")}) asks for access full, wider than this session's edit — it runs with edit`,
  ]);
});

it("a project whose .hel/agents is a link to a folder elsewhere has no agents of its own", async () => {
  const project = await tempProject();
  const elsewhere = await tempProject();
  await files(elsewhere, { "spy.md": "---\ndescription: reads what it should not\n---\n" });
  await mkdir(join(project, ".hel"), { recursive: true });
  await symlink(elsewhere, join(project, ".hel", "agents"));
  const warnings: string[] = [];
  const loaded = loadWarning({ projectDir: project, userDir: join(project, "none", "hel"), access: "edit", secrets: [], warn: (l) => warnings.push(l) });
  expect(loaded).toEqual([]);
  expect(warnings).toEqual([`${join(project, ".hel", "agents")} is a symbolic link, which hel does not follow in a project — its agents are skipped`]);
});

it("a later start takes unchanged agents from the memo, reads them all again when the memo holds one of its secrets, and reads a changed file again", async () => {
  const project = await tempProject();
  const agents = join(project, ".hel", "agents");
  await files(agents, {
    "review.md": "---\ndescription: Reviews the diff\ntools: [read_file, grep]\n---\nUse the token tok-abcdefgh12 and sk-secret-1 sparingly.\n",
    "docs.md": "---\ndescription: Writes the docs\nmode: no-tools\n---\nPlain words.\n",
  });
  const later = Date.now() + 60_000;
  const load = (secrets: string[]) => loadWarning({ projectDir: project, userDir: join(project, "none", "hel"), access: "edit", secrets, warn: () => undefined, now: later });
  const first = load(["sk-secret-1"]);
  await memoSaves();
  const stored = memoFile(project, "agents");
  const memo = await readFile(stored, "utf8");
  expect(memo).toContain("Plain words.");
  expect(memo).not.toContain("sk-secret-1");
  expect(load(["sk-secret-1"])).toEqual(first);
  // From the memo, not the file, while the file is unchanged (shown by a memo changed behind hel's
  // back, its seal put back).
  const { mtime } = await stat(stored);
  await writeFile(stored, memo.replace("Plain words.", "Kept words."));
  await utimes(stored, mtime, mtime);
  expect(load(["sk-secret-1"]).map((a) => a.instructions)).toEqual(["Kept words.", "Use the token tok-abcdefgh12 and [REDACTED] sparingly."]);
  // A start with a secret the memo holds reads every file again, and keeps them masked.
  const masked = load(["sk-secret-1", "tok-abcdefgh12"]);
  expect(masked.map((a) => a.instructions)).toEqual(["Plain words.", "Use the token [REDACTED] and [REDACTED] sparingly."]);
  expect(masked[1]).toEqual({ ...first[1], instructions: "Use the token [REDACTED] and [REDACTED] sparingly." });
  await memoSaves();
  expect(await readFile(stored, "utf8")).not.toContain("tok-abcdefgh12");
  // Edited in place, to the same size: read again.
  await writeFile(join(agents, "docs.md"), "---\ndescription: Writes the docs\nmode: no-tools\n---\nPlain verbs.\n");
  expect(load(["sk-secret-1", "tok-abcdefgh12"]).map((a) => a.instructions)).toEqual(["Plain verbs.", "Use the token [REDACTED] and [REDACTED] sparingly."]);
});

it("a later start warns of a bad file as the first did, with the warning kept in the memo while the file is unchanged", async () => {
  const project = await tempProject();
  await files(join(project, ".hel", "agents"), { "bad.md": "---\ndescription: Reviews\ncolour: red\n---\nWords.\n" });
  const load = () => {
    const warnings: string[] = [];
    const loaded = loadWarning({ projectDir: project, userDir: join(project, "none", "hel"), access: "edit", secrets: [], warn: (l) => warnings.push(l), now: Date.now() + 60_000 });
    return { loaded, warnings };
  };
  const first = load();
  expect(first.loaded).toEqual([]);
  expect(first.warnings).toEqual([expect.stringContaining("the key colour is unknown")]);
  expect(load()).toEqual(first);
  await memoSaves();
  const stored = memoFile(project, "agents");
  const { mtime } = await stat(stored);
  await writeFile(stored, (await readFile(stored, "utf8")).replace("the key colour", "the key kept"));
  await utimes(stored, mtime, mtime);
  expect(load().warnings).toEqual([expect.stringContaining("the key kept is unknown")]);
});

it("a user's agent file that is a loop of links is skipped with a warning, and the start goes on", async () => {
  const project = await tempProject();
  const home = await tempProject();
  await files(join(home, "hel", "agents"), { "fine.md": "---\ndescription: Does fine\n---\n" });
  await symlink("loop.md", join(home, "hel", "agents", "loop.md"));
  const warnings: string[] = [];
  const loaded = loadWarning({ projectDir: project, userDir: join(home, "hel"), access: "edit", secrets: [], warn: (l) => warnings.push(l) });
  expect(loaded.map((a) => a.name)).toEqual(["fine"]);
  expect(warnings).toEqual([`the agent file ${join(home, "hel", "agents", "loop.md")} is a loop of symbolic links — the agent is skipped`]);
});

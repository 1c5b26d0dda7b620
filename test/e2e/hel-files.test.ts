// The files hel reads and writes where a command or a cloned repository could have planted something:
// --record files created afresh instead of written through a symlink or into a FIFO, a symlinked
// snapshot.json not followed, config files, HEL_PRICES and the like read only as regular files of
// bounded size, and what goes wrong said in one line a person reads. Real processes and real files.
import { execFileSync } from "node:child_process";
import { lstat, mkdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { collect, runHel, startHel, type HelRun } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { inTerminal } from "../helpers/terminal.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const mkfifo = (path: string) => execFileSync("mkfifo", [path]);

/** A run that must end by itself: killed after a while, so a hang shows as a failure, not a stuck suite. */
async function runBounded(run: HelRun) {
  const child = startHel(run);
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const result = await collect(child, run.input);
  clearTimeout(timer);
  return result;
}

describe("--record into the project", () => {
  it("replaces planted symlinks and FIFOs with files of its own, writing nothing outside", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const outside = await tempProject();
    await writeFile(join(outside, "victim.json"), "original\n");
    await writeFile(join(outside, ".bashrc"), "# rc\n");
    const record = join(project, "rec");
    await mkdir(join(record, "raw"), { recursive: true });
    await symlink(join(outside, "victim.json"), join(record, "record.json"));
    await symlink(join(outside, ".bashrc"), join(record, "raw", "requests.jsonl"));
    mkfifo(join(record, "raw", "delegations.jsonl"));

    const result = await runBounded({ args: ["-C", project, "--record", record, "hi"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(await readFile(join(outside, "victim.json"), "utf8")).toBe("original\n");
    expect(await readFile(join(outside, ".bashrc"), "utf8")).toBe("# rc\n");
    for (const file of ["record.json", "raw/requests.jsonl", "raw/delegations.jsonl"]) expect((await lstat(join(record, file))).isFile(), file).toBe(true);
    expect(JSON.parse(await readFile(join(record, "record.json"), "utf8"))).toMatchObject({ answer: "echo: hi" });
    expect((await readFile(join(record, "raw", "requests.jsonl"), "utf8")).trim().split("\n")).toHaveLength(1);
  });

  it("refuses a raw/ that is a symlink, in one line, before any request", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const outside = await tempProject();
    const record = join(project, "rec");
    await mkdir(record);
    await symlink(outside, join(record, "raw"));
    const result = await runBounded({ args: ["-C", project, "--record", record, "hi"], baseUrl: sim.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`hel: --record: ${join(record, "raw")} is a symbolic link, and hel writes its records only into files of its own — remove it, or record into another directory\n`);
    expect(execFileSync("ls", ["-A", outside]).toString()).toBe("");
  });
});

it("a snapshot.json that is a symlink is not followed out of the project", async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  const outside = await tempProject();
  const first = await runHel({ args: ["-C", project, "one"], baseUrl: sim.url });
  const id = /resume with: hel --resume (\S+)/.exec(first.stderr)![1]!;
  const snapshot = join(project, ".hel", "sessions", id, "snapshot.json");
  await rename(snapshot, join(outside, "snapshot.json"));
  await symlink(join(outside, "snapshot.json"), snapshot);
  const resumed = await runHel({ args: ["-C", project, "--resume", id, "two"], baseUrl: sim.url });
  expect(resumed.code).toBe(2);
  expect(resumed.stderr).toBe(`hel: session ${id}: snapshot.json is a symbolic link (${snapshot}), which hel does not follow — delete the session with \`hel sessions rm ${id}\`\n`);
  expect(sim.requests).toHaveLength(1);
});

it("a .hel/history that is a symlink is neither read nor appended to", async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  const outside = await tempProject();
  await writeFile(join(outside, ".bashrc"), `"secret line"\n`);
  await mkdir(join(project, ".hel"));
  await symlink(join(outside, ".bashrc"), join(project, ".hel", "history"));
  const t = inTerminal(["-C", project], sim.url);
  await t.until((s) => s.includes("›"), "the prompt");
  // The up arrow would bring back a line of the file behind the link.
  t.type("\x1b[A");
  t.type("hello\r");
  await t.until((s) => s.includes("echo: hello"), "the answer");
  t.type("\x04");
  expect(await t.exited).toBe(0);
  expect(t.screen()).not.toContain("secret line");
  expect(await readFile(join(outside, ".bashrc"), "utf8")).toBe(`"secret line"\n`);
});

describe("files hel is given must be regular files of bounded size", () => {
  const cases: [string, (project: string, configHome: string) => Promise<Record<string, string>>, RegExp][] = [
    [
      "a FIFO as .hel/config.json",
      async (project) => {
        await mkdir(join(project, ".hel"));
        mkfifo(join(project, ".hel", "config.json"));
        return {};
      },
      /^hel: the config file .*\/\.hel\/config\.json is a FIFO, not a regular file — fix it or remove it\n$/,
    ],
    [
      "a FIFO as the user's config",
      async (_project, configHome) => {
        mkfifo(join(configHome, "hel", "config.json"));
        return {};
      },
      /^hel: the config file .*\/hel\/config\.json is a FIFO, not a regular file — fix it or remove it\n$/,
    ],
    [
      "/dev/zero as the user's config",
      async (_project, configHome) => {
        await symlink("/dev/zero", join(configHome, "hel", "config.json"));
        return {};
      },
      /^hel: the config file .*\/hel\/config\.json is a device, not a regular file — fix it or remove it\n$/,
    ],
    [
      "a FIFO as HEL_PRICES",
      async (project) => {
        mkfifo(join(project, "prices.json"));
        return { HEL_PRICES: join(project, "prices.json") };
      },
      /^hel: HEL_PRICES: .*\/prices\.json is a FIFO, not a regular file — fix the file \(the README shows the format\) or unset HEL_PRICES\n$/,
    ],
    [
      "a 20 MB config file",
      async (project) => {
        await mkdir(join(project, ".hel"));
        await writeFile(join(project, ".hel", "config.json"), JSON.stringify({ model: "m".repeat(20 * 1024 * 1024) }));
        return {};
      },
      /^hel: the config file .*\/\.hel\/config\.json is larger than 1024 KB — fix it or remove it\n$/,
    ],
    [
      "a loop of symbolic links as the project's config",
      async (project) => {
        await mkdir(join(project, ".hel"));
        await symlink("b", join(project, ".hel", "a"));
        await symlink("a", join(project, ".hel", "b"));
        await symlink("a", join(project, ".hel", "config.json"));
        return {};
      },
      /^hel: the config file .*\/\.hel\/config\.json is a loop of symbolic links — fix it or remove it\n$/,
    ],
  ];

  it.each(cases)("%s is a one-line usage error, never a hang", async (_name, plant, message) => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const configHome = await tempProject();
    await mkdir(join(configHome, "hel"));
    const env = await plant(project, configHome);
    const result = await runBounded({ args: ["-C", project, "hi"], baseUrl: sim.url, env: { XDG_CONFIG_HOME: configHome, ...env } });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(sim.requests).toHaveLength(0);
  });

  it("a huge model name is refused in a bounded line", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const result = await runHel({ args: ["-C", project, "--model", "m".repeat(100_000), "hi"], baseUrl: sim.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("hel: --model takes a model name of at most 256 characters — see hel --help\n");
  });

  it("a loop of symbolic links where .hel/sessions is says so in words: a link there is refused, not followed", async () => {
    const project = await tempProject();
    await mkdir(join(project, ".hel"));
    await symlink("b", join(project, ".hel", "a"));
    await symlink("a", join(project, ".hel", "b"));
    await symlink("a", join(project, ".hel", "sessions"));
    const result = await runHel({ args: ["-C", project, "sessions", "ls"] });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`hel: could not list sessions: ${join(project, ".hel", "sessions")} is a symbolic link, which hel does not follow; remove it\n`);
  });

  it("a .hel that is a symlink is refused before any request", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const outside = await tempProject();
    await symlink(outside, join(project, ".hel"));
    const result = await runHel({ args: ["-C", project, "hi"], baseUrl: sim.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^hel: .*\/\.hel is a symbolic link, so hel could not save this session — /);
    expect(sim.requests).toHaveLength(0);
  });
});

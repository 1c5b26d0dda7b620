// run_command through the built CLI, as its own process: without a sandbox program on hel's PATH, a
// command that outlives a killed hel keeps its session in use, and the interactive prompt shows a
// command's output as it runs and stops it on Ctrl-C. The rest of run_command's runs are in this
// process, in test/cli/commands.test.ts.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { HEL, helEnv, runHel, startHel } from "../helpers/hel.js";
import { lastToolResult, runCommand } from "../helpers/command-steps.js";
import { tempProject } from "../helpers/temp-project.js";
import { running } from "../helpers/processes.js";
import { waitFor } from "../helpers/wait.js";

let sim: Simulator;
afterEach(async () => sim?.close());

describe("without a sandbox program", () => {
  it("says so once at start, and run_command refuses under edit, saying what to do", async () => {
    sim = await startSimulator({ script: [runCommand({ command: "touch ran" }), { content: "could not" }] });
    const project = await tempProject();
    const env = { PATH: join(project, "no-programs") };
    const result = await runHel({ args: ["-C", project, "--tools", "run_command", "try"], baseUrl: sim.url, env });
    expect(result.code).toBe(0);
    const warnings = result.stderr.split("\n").filter((line) => line.startsWith("hel: "));
    expect(warnings).toEqual([
      "hel: no sandbox program found, so run_command will refuse to run commands under --access edit — install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap) or use --access full to run commands without a sandbox",
    ]);
    expect(lastToolResult(sim)).toMatch(/^\[#2\] Error: no command was run: under --access edit hel runs commands only inside a sandbox/);
    expect(existsSync(join(project, "ran"))).toBe(false);
  });

  it("says nothing when run_command is not offered or runs under full", async () => {
    sim = await startSimulator({ script: [{ content: "ok" }, runCommand({ command: "echo ran" }), { content: "ran" }] });
    const project = await tempProject();
    const env = { PATH: join(project, "no-programs") };
    expect((await runHel({ args: ["-C", project, "--tools", "read_file,grep", "hi"], baseUrl: sim.url, env })).stderr).not.toMatch(/hel: /);
    const full = await runHel({ args: ["-C", project, "--tools", "run_command", "--access", "full", "run"], baseUrl: sim.url, env });
    // No git on that PATH either: the one line is that file checkpoints are off.
    expect(full.stderr.split("\n").filter((line) => line.startsWith("hel: "))).toEqual(["hel: git is not installed: file checkpoints are off (no /rewind or /undo of files) — install git to have them"]);
    expect(lastToolResult(sim)).toMatch(/^\[#2\] exit code 0 · \d+\.\d\d s\nran$/);
  });
});

describe("a command outlives a killed hel", () => {
  it("keeps the session in use (exit 3) while it runs, though hel was killed with SIGKILL", async () => {
    const marker = "sleep 3050";
    sim = await startSimulator({ script: [{ content: "first answer" }, runCommand({ command: `touch started; ${marker}` })] });
    const project = await tempProject();
    const first = await runHel({ args: ["-C", project, "--tools", "run_command", "--access", "full", "hi"], baseUrl: sim.url });
    const id = /resume with: hel --resume (\S+)/.exec(first.stderr)![1]!;

    const hel = startHel({ args: ["-C", project, "--tools", "run_command", "--access", "full", "--resume", id, "run it"], baseUrl: sim.url });
    await waitFor(() => existsSync(join(project, "started")), "the command to start");
    const recorded = async () => (await readdir(join(project, ".hel", "sessions", id, "commands")).catch(() => [])).filter((f) => f.endsWith(".json"));
    await waitFor(async () => (await recorded()).length === 1, "the command's record");
    const pgid = Number((await recorded())[0]!.replace(".json", ""));
    hel.kill("SIGKILL");
    await new Promise((resolve) => hel.on("close", resolve));
    try {
      expect(running(marker)).not.toEqual([]);
      const again = await runHel({ args: ["-C", project, "--resume", id, "again"], baseUrl: sim.url });
      expect(again.code).toBe(3);
      expect(again.stderr).toBe(`hel: session ${id} is in use: a command it started is still running (process group ${pgid}) — wait for it to end, or end it with \`kill -- -${pgid}\`\n`);
      const rm = await runHel({ args: ["-C", project, "sessions", "rm", id] });
      expect(rm.code).toBe(3);
      const ls = await runHel({ args: ["-C", project, "sessions", "ls", "--json"] });
      expect(JSON.parse(ls.stdout)).toMatchObject([{ id, in_use: true }]);
    } finally {
      process.kill(-pgid, "SIGKILL");
    }
  });
});

describe("the interactive prompt", () => {
  it("shows the command's output as it runs; Ctrl-C stops the command and keeps the conversation", async () => {
    sim = await startSimulator({ policy: "echo", script: [runCommand({ command: "echo ready; sleep 3060" })] });
    const project = await tempProject();
    const child = spawn("script", ["-qfec", `${process.execPath} ${HEL} -C ${project} --tools run_command`, "/dev/null"], { env: helEnv(sim.url), stdio: ["pipe", "pipe", "pipe"] });
    let screen = "";
    child.stdout.on("data", (d: Buffer) => (screen += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));

    await waitFor(() => screen.includes("›"), "the prompt");
    child.stdin.write("run the server\r");
    await waitFor(() => screen.includes("│ ready"), "the live output");
    expect(screen).toContain("$ echo ready; sleep 3060");
    expect(running("sleep 3060")).not.toEqual([]);
    child.stdin.write("\x03");
    await waitFor(() => screen.includes("(interrupted — the conversation is kept"), "the interruption note");
    // Cut to the terminal's width; the output it had printed stays above it.
    expect(screen).toMatch(/│ ready\x1b\[22m\r?\n {2}✗ interrupted after \d+\.\d\d s: the command and every process/);
    expect(running("sleep 3060")).toEqual([]);

    child.stdin.write("what happened\r");
    await waitFor(() => screen.includes("echo: what happened"), "the next answer");
    child.stdin.write("\x04");
    expect(await exited).toBe(0);
    const messages = (sim.requests.at(-1)!.body as ChatRequest).messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(messages[3]!.content).toMatch(/^\[#2\] interrupted after \d+\.\d\d s: the command and every process it started were ended\nThe user stopped it \(Ctrl-C\)\. Ask before running it again\.\nready$/);
  });
});

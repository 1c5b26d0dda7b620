// Control sequences in text from outside never reach the terminal, the built CLI in a pseudo-terminal
// (and with stderr captured) against the simulator: a clipboard write (OSC 52), window titles (OSC 0
// and 2), a screen clear (CSI 2J) and their one-byte C1 forms, put by the model in its reasoning, its
// answer, a command line and a path, by a command in its output, and by a file in a tool error, then
// shown again by `hel sessions show`, and in hel's own one-line errors. Only hel's own styling is sent.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { runHel } from "../helpers/hel.js";
import { inTerminal } from "../helpers/terminal.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07";
const TITLE = "\x1b]0;pwned\x07";
const TITLE_ST = "\x1b]2;pwned\x1b\\";
const CLEAR = "\x1b[2J";
const C1 = "\u009b2J\u009d0;pwned\u0007";
const PLANTED = `${CLIPBOARD}${TITLE}${TITLE_ST}${CLEAR}${C1}`;

/** What a terminal must never be sent: the start of an OSC, the screen clear, C1 controls. */
function planted(bytes: string): string[] {
  return ["\x1b]", CLEAR, "\u009b", "\u009d"].filter((s) => bytes.includes(s));
}

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });

describe("escape sequences from outside", () => {
  it("never reach the terminal: reasoning, answer, the command line and its output, a tool error, sessions show", async () => {
    const dir = await tempProject();
    await writeFile(join(dir, "planted.txt"), `${PLANTED}\n`);
    sim = await startSimulator({
      script: [
        { reasoning: `thinking ${PLANTED} more`, tool_calls: [call("run_command", { command: `echo start ${PLANTED}; cat planted.txt` })] },
        { tool_calls: [call("read_file", { path: `missing ${PLANTED}.txt` })] },
        { tool_calls: [call("search_replace", { path: "planted.txt", old_text: "not there", new_text: "x" })] },
        { content: `The answer ${PLANTED} ends here.` },
      ],
    });
    const run = inTerminal(["-C", dir, "--show-reasoning", "go"], sim.url);
    expect(await run.exited).toBe(0);
    const bytes = run.bytes();
    // The run happened and showed each of them, made harmless.
    expect(run.screen()).toContain("The answer");
    expect(run.screen()).toContain("$ echo start");
    expect(run.screen()).toContain("thinking");
    expect(run.screen()).toMatch(/✗.* Error: missing/);
    // hel's own styling still comes through.
    expect(bytes).toContain("\x1b[2m");
    expect(planted(bytes)).toEqual([]);

    const listed = await runHel({ args: ["-C", dir, "sessions", "ls", "--json"] });
    const id = (JSON.parse(listed.stdout) as { id: string }[])[0]!.id;
    const show = inTerminal(["-C", dir, "sessions", "show", id], sim.url);
    expect(await show.exited).toBe(0);
    expect(show.screen()).toContain("The answer");
    expect(show.screen()).toContain("echo start");
    expect(planted(show.bytes())).toEqual([]);
  });

  it("never reach the terminal in hel's own one-line errors (a path and a model name)", async () => {
    const path = await runHel({ args: ["-C", `/nonexistent/${PLANTED}`, "sessions", "ls"] });
    expect(path.code).toBe(2);
    expect(path.stderr).toMatch(/^hel: the project directory \/nonexistent\/.* does not exist — check -C\n$/);
    expect(planted(path.stderr)).toEqual([]);

    sim = await startSimulator({ script: [{ content: "never" }] });
    const model = await runHel({ args: ["-C", await tempProject(), "--model", `deepseek-${PLANTED}`, "hi"], baseUrl: sim.url });
    expect(model.code).not.toBe(0);
    expect(model.stderr).toMatch(/^hel: /m);
    expect(planted(model.stderr)).toEqual([]);
  });
});

describe("hel's one-line errors", () => {
  // One environment string may hold at most 128 KiB, so the longest model name a test can pass is
  // shorter than the 20 MB one of the report; the bound is the same whatever the length.
  it("are bounded: a project path of 120,000 characters gives a short line that keeps its start and end", async () => {
    sim = await startSimulator({ script: [{ content: "never" }] });
    const name = `/deepseek-${"x".repeat(120_000)}-end`;
    const run = await runHel({ args: ["-C", name, "hi"], baseUrl: sim.url });
    expect(run.code).not.toBe(0);
    const lines = run.stderr.split("\n").filter((l) => l.startsWith("hel: "));
    expect(lines.length).toBeGreaterThan(0);
    expect(run.stderr.length).toBeLessThan(10_000);
    expect(lines.join("\n")).toMatch(/deepseek-x+… \([\d,]+ characters left out\) …x+-end/);
  });
});

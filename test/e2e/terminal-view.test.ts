// What stays on a real terminal (a pseudo-terminal) once things end: a finished command's last lines
// (more after a failure) with how many came before them, also after Ctrl-C, and `sessions show`
// with the same tail; and no line wider than the terminal at 60, 80 and 160 columns — the resume
// preview, the delegation line, the usage line, a long command, the resume line (its command whole).
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { inTerminal } from "../helpers/terminal.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const runCommand = (command: string) => ({ tool_calls: [{ name: "run_command", arguments: JSON.stringify({ command }) }] });
const plain = (screen: string) => screen.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, "");
const sessionIdOf = (screen: string) => /session (\S+) — resume with/.exec(screen)?.[1] ?? /saved in session\s+(\S+);/.exec(screen)?.[1];
const numbered = (from: number, to: number, row: (n: number) => string) => Array.from({ length: to - from + 1 }, (_, i) => row(from + i));

describe("a finished command", () => {
  it("leaves its last lines on screen, ten after a failure and three after a success, and sessions show keeps the failure's tail", async () => {
    sim = await startSimulator({ script: [runCommand("for i in $(seq 1 30); do echo line $i; done; exit 1"), runCommand("seq 1 8"), { content: "done" }] });
    const project = await tempProject();
    const hel = inTerminal(["-C", project, "--tools", "run_command", "build"], sim.url);
    expect(await hel.exited).toBe(0);
    const screen = plain(hel.screen()).replaceAll("\r", "");
    expect(screen).toContain(["$ for i in $(seq 1 30); do echo line $i; done; exit 1", "  │ … 20 lines before these", ...numbered(21, 30, (n) => `  │ line ${n}`), "  ✗ exit code 1 · "].join("\n"));
    expect(screen).toContain(["$ seq 1 8", "  │ … 5 lines before these", "  │ 6", "  │ 7", "  │ 8", "  ✓ exit code 0 · "].join("\n"));

    const shown = await runHel({ args: ["-C", project, "sessions", "show", sessionIdOf(screen)!] });
    expect(shown.stdout).toMatch(/ {2}← \[#2\] exit code 1 · \d+\.\d\d s; sandbox: [^\n]* \(31 lines, [^\n]*\)\n/);
    expect(shown.stdout).toContain(["    │ … 20 lines before these", ...numbered(21, 30, (n) => `    │ line ${n}`), ""].join("\n"));
  });

  it("keeps its lines after Ctrl-C, and the last line says the turn is saved and how to resume it", async () => {
    sim = await startSimulator({ script: [runCommand("echo one; echo two; sleep 3061")] });
    const project = await tempProject();
    const hel = inTerminal(["-C", project, "--tools", "run_command", "serve"], sim.url);
    await hel.until((screen) => screen.includes("│ two"), "the command's output");
    hel.type("\x03");
    expect(await hel.exited).toBe(130);
    const screen = plain(hel.screen()).replaceAll("\r", "");
    expect(screen).toMatch(/\$ echo one; echo two; sleep 3061\n {2}│ one\n {2}│ two\n {2}✗ interrupted after \d+\.\d\d s: /);
    const id = sessionIdOf(screen)!;
    // Wider than the terminal's 80 columns: the words fitted to its rows, the command whole on a row of its own.
    const last = screen.trimEnd().split("\n").slice(-3);
    expect(last).toEqual(["hel: interrupted — the turn so far is saved in session", `  ${id}; resume with:`, `hel --resume ${id} -C ${project}`]);
  });
});

describe.each([60, 80, 160])("at %i columns", (columns) => {
  it("no line is wider than the terminal: the resume preview, the delegation, the usage line, a long command", async () => {
    const long = (what: string) => `${what} ${"and then some more words about it ".repeat(6)}`.trim();
    sim = await startSimulator({
      script: [
        { content: "Delegating.", tool_calls: [{ name: "delegate_task", arguments: JSON.stringify({ task: long("check the build") }) }] },
        { content: "child: fine" },
        runCommand(`echo ${"x".repeat(150)} ${long("echo")}`),
        { content: long("The build is fine") },
      ],
    });
    const project = await tempProject();
    const first = inTerminal(["-C", project, "--delegate", "full", "--tools", "run_command", long("look at the build")], sim.url, {}, columns);
    expect(await first.exited).toBe(0);
    const screen = plain(first.screen());
    expect(screen).toContain("⇢ delegating (full) #1: check the build");
    expect(screen).toContain("context ~");
    expect(screen).toContain("$ echo");

    const resumed = inTerminal(["-C", project, "--resume", sessionIdOf(screen)!], sim.url, {}, columns);
    await resumed.until((s) => s.includes("› look at the build"), "the resume preview");
    resumed.type("\x04");
    expect(await resumed.exited).toBe(0);

    // Left whole for the terminal to wrap: the answer (prose, copied as it came), the one-line
    // messages a log is searched for (`hel: …`), and the resume command a person copies, on its own row.
    const whole = (line: string) => line.startsWith("The build is fine") || line.startsWith("hel: ") || line.startsWith("hel --resume ");
    const lines = [...screen.split("\n"), ...plain(resumed.screen()).split("\n")].map((line) => line.replace(/\r$/, ""));
    expect(lines.filter((line) => !whole(line) && Array.from(line).length >= columns)).toEqual([]);
    // The resume line: one line where it fits, else its command whole on a row of its own.
    const command = `hel --resume ${sessionIdOf(screen)} -C ${project}`;
    expect(lines).toContain(columns === 160 ? `session ${sessionIdOf(screen)} — resume with: ${command}` : command);
    // The usage line is wrapped between its figures, none left out.
    const usage = screen.slice(screen.indexOf("4 requests · "), screen.indexOf(" tokens\nsession ")).split("\n");
    expect(usage.map((row) => row.trim()).join(" ")).toMatch(/^4 requests · [\d,]+ input tokens \([\d,]+ cached, \d+%\)( ·)? [\d,]+ output( ·)? .*\(parent .*; 1 subagent .*\)( ·)? context ~[\d,]+$/);
  });
});

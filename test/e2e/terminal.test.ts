// The built hel in a real terminal and through pipes: `script` gives it a pseudo-terminal, and the
// test reads the screen's bytes. An edit shows as a coloured diff with line numbers and the run ends
// with the files it changed; `sessions show` shows the same diff; an answer is rendered as markdown
// on a terminal and left as the model wrote it in a pipe; the spinner shows on a terminal only, with a
// line for each working subagent; and --json-events streams every event as a JSON line.
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { lastUserText } from "../../sim/policies.js";
import { JsonEventSchema, type JsonEvent } from "../../src/cli/json/json-events.js";
import { HEL, helEnv, runHel } from "../helpers/hel.js";
import { screenOf } from "../helpers/screen.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;
const RED = (text: string) => `\x1b[31m${text}\x1b[39m`;
const GREEN = (text: string) => `\x1b[32m${text}\x1b[39m`;
const DIM = (text: string) => `\x1b[2m${text}\x1b[22m`;

/** hel in a pseudo-terminal: stdin, stdout and stderr are all the terminal, as when a person runs it. */
function inTerminal(args: string[], baseUrl: string) {
  const command = [process.execPath, HEL, ...args].map(quote).join(" ");
  // NO_COLOR unset: the terminal gets colours, as it would for most people.
  const child = spawn("script", ["-qfec", command, "/dev/null"], { env: helEnv(baseUrl, { NO_COLOR: undefined }), stdio: ["pipe", "pipe", "pipe"] });
  let bytes = "";
  child.stdout.on("data", (d: Buffer) => (bytes += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const screen = () => screenOf(bytes);
  return { child, exited, screen, bytes: () => bytes, until: (check: () => boolean, what: string) => waitFor(check, () => `${what}; screen so far:\n${screen()}`) };
}

const GREET = 'function greet() {\n  // say hello\n  const who = "world";\n  console.log("Helo, world");\n  return who;\n}\nmodule.exports = greet;\n';
const ANSWER = "## Fixed\n\nThe greeting said **Helo**; it now says `Hello`.\n\n- `greet.js`: one line\n- `NOTES.md`: new\n";
const EDITS = [
  { tool_calls: [call("read_file", { path: "greet.js" })] },
  {
    tool_calls: [
      call("search_replace", { path: "greet.js", old_text: 'console.log("Helo, world");', new_text: 'console.log("Hello, world");' }),
      call("search_replace", { path: "NOTES.md", old_text: "", new_text: "# Notes\n\n- fixed the greeting\n" }),
    ],
  },
  { content: ANSWER },
];

describe("an edit in the terminal", () => {
  let project: string;
  beforeEach(async () => {
    project = await tempProject();
    await writeFile(join(project, "greet.js"), GREET);
  });

  it("shows each edit as a coloured diff with line numbers, renders the answer, and ends with the files changed", async () => {
    sim = await startSimulator({ script: EDITS });
    const hel = inTerminal(["-C", project, "fix the greeting"], sim.url);
    expect(await hel.exited).toBe(0);
    const screen = hel.screen();
    expect(await readFile(join(project, "greet.js"), "utf8")).toContain("Hello, world");
    expect(screen).toContain("→ search_replace greet.js\n");
    expect(screen).toContain(
      [
        `  ${DIM("1")}   function greet() {`,
        `  ${DIM("2")}     // say hello`,
        `  ${DIM("3")}     const who = "world";`,
        `  ${DIM("4")} ${RED('-   console.log("Helo, world");')}`,
        `  ${DIM("4")} ${GREEN('+   console.log("Hello, world");')}`,
        `  ${DIM("5")}     return who;`,
      ].join("\n"),
    );
    expect(screen).toContain(["→ search_replace NOTES.md", `  ${DIM("1")} ${GREEN("+ # Notes")}`].join("\n"));
    // The answer, rendered: no markup characters, bold and code in colour.
    expect(screen).toContain("\x1b[1mFixed\x1b[22m\n\nThe greeting said \x1b[1mHelo\x1b[22m; it now says \x1b[36mHello\x1b[39m.");
    expect(screen).not.toContain("**");
    expect(screen).toContain(["changed 2 files:", `  greet.js  ${GREEN("+1")} ${RED("-1")}`, `  NOTES.md  ${GREEN("+3")} ${RED("-0")}${DIM(" (new)")}`].join("\n"));
    expect(screen).toMatch(/changed 2 files:[^]*resume with:\s+hel --resume [0-9a-f-]{36}/);

    // `sessions show` shows the same diffs: in colour on a terminal, plain in a pipe.
    const id = /resume with:\s+hel --resume ([0-9a-f-]{36})/.exec(screen)![1]!;
    const shown = await runHel({ args: ["-C", project, "sessions", "show", id] });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      [
        "→ search_replace greet.js",
        "  1   function greet() {",
        "  2     // say hello",
        '  3     const who = "world";',
        '  4 -   console.log("Helo, world");',
        '  4 +   console.log("Hello, world");',
        "  5     return who;",
        "  6   }",
        "  7   module.exports = greet;",
        "  ← [#3] Edited greet.js: replaced line 4; the new text is at line 4. (1 line, 65 B)",
        "→ search_replace NOTES.md",
        "  1 + # Notes",
        "  2 +",
        "  3 + - fixed the greeting",
        "  ← [#4] Created NOTES.md (3 lines). (1 line, 32 B)",
      ].join("\n"),
    );
    const shownInTerminal = inTerminal(["-C", project, "sessions", "show", id], sim.url);
    expect(await shownInTerminal.exited).toBe(0);
    expect(shownInTerminal.screen()).toContain(`  ${DIM("4")} ${RED('-   console.log("Helo, world");')}`);
  });

  it("shows the same in the interactive prompt, the files changed when it ends", async () => {
    sim = await startSimulator({ script: EDITS });
    const hel = inTerminal(["-C", project], sim.url);
    await hel.until(() => hel.screen().includes("›"), "the prompt");
    hel.child.stdin.write("fix the greeting\r");
    await hel.until(() => /it now says[^]*context ~[^]*›/.test(hel.screen()), "the answer and the next prompt");
    hel.child.stdin.write("\x04");
    expect(await hel.exited).toBe(0);
    const screen = hel.screen();
    expect(screen).toContain(`→ search_replace greet.js\n  ${DIM("1")}   function greet() {\n`);
    expect(screen).toContain(`\n\n\x1b[1mFixed\x1b[22m\n\nThe greeting said \x1b[1mHelo\x1b[22m; it now says \x1b[36mHello\x1b[39m.\n\n\x1b[36m•\x1b[39m \x1b[36mgreet.js\x1b[39m: one line\n`);
    expect(screen).toMatch(/\nchanged 2 files:\n[^]*\nsession [0-9a-f-]{36} — resume with/);
  });

  it("prints the answer as the model wrote it, and no spinner or colour, when stdout and stderr are pipes", async () => {
    sim = await startSimulator({ script: EDITS });
    const result = await runHel({ args: ["-C", project, "fix the greeting"], baseUrl: sim.url, env: { NO_COLOR: undefined } });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${ANSWER}\n`);
    expect(result.stderr).not.toContain("\x1b");
    expect(result.stderr).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|requesting/);
    expect(result.stderr).toContain('  4 -   console.log("Helo, world");\n  4 +   console.log("Hello, world");\n');
    expect(result.stderr).toContain("changed 2 files:\n  greet.js  +1 -1\n  NOTES.md  +3 -0 (new)\n");
  });
});

it("keeps the diffs of a session's edits across a resume", async () => {
  sim = await startSimulator({
    script: [
      { tool_calls: [call("search_replace", { path: "a.txt", old_text: "", new_text: "one\n" })] },
      { content: "made" },
      { tool_calls: [call("search_replace", { path: "a.txt", old_text: "one", new_text: "two" })] },
      { content: "changed" },
    ],
  });
  const project = await tempProject();
  const first = await runHel({ args: ["-C", project, "make a.txt"], baseUrl: sim.url });
  const id = /resume with: hel --resume ([0-9a-f-]{36})/.exec(first.stderr)![1]!;
  const second = await runHel({ args: ["-C", project, "--resume", id, "change it"], baseUrl: sim.url });
  expect(second.code).toBe(0);
  // Each run lists what it changed itself.
  expect(second.stderr).toContain("changed 1 file:\n  a.txt  +1 -1\n");
  const shown = await runHel({ args: ["-C", project, "sessions", "show", id] });
  expect(shown.stdout).toContain("→ search_replace a.txt\n  1 + one\n");
  expect(shown.stdout).toContain("→ search_replace a.txt\n  1 - one\n  1 + two\n");
});

it("shows a spinner with the current step and the time spent on a terminal, in one-shot mode too", async () => {
  sim = await startSimulator({ script: [{ faults: [{ kind: "delay", ms: 30_000 }], reply: { content: "too late" } }] });
  const project = await tempProject();
  const hel = inTerminal(["-C", project, "take your time"], sim.url);
  await hel.until(() => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] requesting · \d+\.\ds/.test(hel.screen()), "the spinner");
  hel.child.stdin.write("\x03");
  await hel.exited;
  // Drawn over itself, and erased before hel's last lines: the screen keeps no trace of it.
  expect(hel.bytes()).toMatch(/\r\x1b\[J/);
  expect(hel.screen()).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
});

it("shows each working subagent on its own line under the spinner, and Ctrl-C stops them all", async () => {
  sim = await startSimulator({
    policy: (req) =>
      lastUserText(req).startsWith("You are a subagent")
        ? { faults: [{ kind: "delay", ms: 30_000 }], reply: { content: "too late" } }
        : { tool_calls: ["one", "two", "three"].map((task) => call("delegate_task", { task: `count to ${task}` })) },
  });
  const project = await tempProject();
  const hel = inTerminal(["-C", project, "--delegate", "task-only", "count three ways at once"], sim.url);
  // Dimmed, under the spinner's own line.
  const lines = [/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for 3 subagents · \d+\.\ds/, ...[1, 2, 3].map((n) => `  #${n} task-only · step 1 · 0 tokens · requesting`)];
  const shown = () => hel.screen().split("\n").slice(-4);
  await hel.until(() => lines.every((line, i) => shown()[i]?.startsWith("\x1b[2m") && shown()[i]!.match(line) !== null), "a line per subagent");
  hel.child.stdin.write("\x03");
  await hel.exited;
  expect(hel.screen()).toMatch(/⇠ delegation #1 aborted/);
  expect(hel.screen()).toMatch(/⇠ delegation #3 aborted/);
  expect(hel.screen()).not.toMatch(/#\d task-only · step/);
});

it("shows the whole reasoning on stderr with --show-reasoning, and none of it in a pipe without", async () => {
  const reply = { reasoning: "First I check the file.\nThen I answer.", content: "ok" };
  sim = await startSimulator({ script: [reply, reply] });
  const project = await tempProject();
  const shown = await runHel({ args: ["-C", project, "--show-reasoning", "think"], baseUrl: sim.url });
  expect(shown.stdout).toBe("ok\n");
  expect(shown.stderr.startsWith("First I check the file.\nThen I answer.\n1 request")).toBe(true);
  const quiet = await runHel({ args: ["-C", project, "think"], baseUrl: sim.url });
  expect(quiet.stderr).not.toContain("First I check");
});

describe("--json-events", () => {
  it("streams every event as one JSON line, a subagent's tagged with its delegation", async () => {
    sim = await startSimulator({
      script: [
        { reasoning: "delegate it", tool_calls: [call("delegate_task", { task: "create a.txt" })] },
        { tool_calls: [call("search_replace", { path: "a.txt", old_text: "", new_text: "hi\n" })] },
        { content: "created" },
        { content: "Done." },
      ],
    });
    const project = await tempProject();
    const result = await runHel({ args: ["-C", project, "--delegate", "task-only", "--json-events", "make a.txt"], baseUrl: sim.url });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.pop()).toBe("");
    const events: JsonEvent[] = lines.map((line) => JsonEventSchema.parse(JSON.parse(line)));
    const outline = events.filter((e) => !["reasoning", "text", "message"].includes(e.type)).map((e) => `${e.agent}${e.delegation ? `#${e.delegation}` : ""} ${e.type}`);
    // Every message that joined the parent's conversation, in order: the instruction, the call, its result, the answer.
    const parentMessages = events.flatMap((e) => (e.type === "message" && e.agent === "parent" ? [e.message.role] : []));
    expect(parentMessages).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(outline).toEqual([
      "parent turn_start",
      "parent request",
      "parent response",
      "parent tool_start",
      "parent delegation_start",
      "child#1 turn_start",
      "child#1 request",
      "child#1 response",
      "child#1 tool_start",
      "child#1 tool_end",
      "child#1 request",
      "child#1 response",
      "child#1 turn_end",
      "parent delegation_end",
      "parent tool_end",
      "parent request",
      "parent response",
      "parent turn_end",
    ]);
    const firstStep = events.slice(
      0,
      events.findIndex((e) => e.type === "response"),
    );
    expect(
      firstStep
        .filter((e) => e.type === "reasoning")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("delegate it");
    expect(
      events
        .filter((e) => e.type === "text" && e.agent === "parent")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("Done.");
    const edit = events.find((e) => e.type === "tool_end" && e.agent === "child");
    expect(edit).toMatchObject({ name: "search_replace", is_error: false, result: "Created a.txt (1 line).", edit: { path: "a.txt", created: true, added: 1, removed: 0 } });
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: "turn_end", agent: "parent", answer: "Done.", exit_reason: "completed", usage: { requests: 4 } });
    expect((end as { session_id: string }).session_id).toMatch(/^[0-9a-f-]{36}$/);
    // Nothing but the events on stdout; progress stays on stderr.
    expect(result.stderr).toContain("→ delegate_task");
  });

  it("gives tool_end the call's details beside its result: a command's exit code, a search's counts", async () => {
    sim = await startSimulator({
      script: [{ tool_calls: [call("run_command", { command: "echo hi; exit 3" }), call("grep", { pattern: "needle" }), call("find_files", { pattern: "*.txt" })] }, { content: "Done." }],
    });
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "needle\nhay\nneedle again\n");
    await writeFile(join(project, "b.txt"), "needle\n");
    const result = await runHel({ args: ["-C", project, "--access", "full", "--json-events", "look"], baseUrl: sim.url });
    expect(result.code, result.stderr).toBe(0);
    const ends = result.stdout
      .trim()
      .split("\n")
      .map((line) => JsonEventSchema.parse(JSON.parse(line)))
      .filter((e): e is Extract<JsonEvent, { type: "tool_end" }> => e.type === "tool_end");
    expect(ends.map((e) => [e.name, e.is_error, e.details])).toEqual([
      ["run_command", false, { kind: "command", exit_code: 3, signal: null, duration_ms: expect.any(Number), timed_out: false, interrupted: false }],
      ["grep", false, { kind: "search", matches: 3, unit: "line", files: 2, more: false }],
      ["find_files", false, { kind: "search", matches: 2, unit: "file", files: 2, more: false }],
    ]);
    // The result the model gets is as it was: the details are only beside it.
    expect(ends[0]!.result).toMatch(/^exit code 3 · \d+\.\d\d s\nhi$/);
    expect(ends[1]!.result).toBe("a.txt:1: needle\na.txt:3: needle again\nb.txt:1: needle\n[3 matches in 2 files]");
    // The terminal's lines come from the same details.
    expect(result.stderr).toContain("  ✗ exit code 3 · ");
    expect(result.stderr).toContain('→ grep "needle" — 3 matches in 2 files\n');
    expect(result.stderr).toContain('→ find_files "*.txt" — 2 files, newest first\n');
  });

  it("cannot be combined with --json", async () => {
    const result = await runHel({ args: ["--json", "--json-events", "hi"] });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("hel: --json and --json-events cannot be used together — pick one\n");
  });
});

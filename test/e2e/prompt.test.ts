// Input as people type and paste it, and the prompt's slash commands, driven through a pseudo-terminal
// against the built hel: a bracketed paste is one instruction, a trailing backslash or Alt-Enter goes
// on to the next line, a line typed while hel works is sent next, the arrow keys recall instructions
// (of earlier runs too, from .hel/history, without the API key), the commands never reach the model,
// and the session picker works in the prompt and for `hel --resume`. Through pipes: piped text plus a
// prompt is one instruction, `hel -` reads all of stdin as one, and an empty instruction sends nothing.
import { execFile } from "node:child_process";
import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { HEL, helEnv, runHel } from "../helpers/hel.js";
import { count, inTerminal } from "../helpers/terminal.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const KEY = "sk-prompt-test-secret-0123456789";
const bodies = () => sim.requests.map((r) => r.body as ChatRequest);
const users = (body: ChatRequest) => body.messages.filter((m) => m.role === "user").map((m) => m.content);
const call = (name: string, args: object) => ({ tool_calls: [{ name, arguments: JSON.stringify(args) }] });
/** A command that runs until the test creates the file `go`: hel is busy exactly as long as the test wants. */
const waitForGo = call("run_command", { command: "while [ ! -f go ]; do sleep 0.05; done; echo went" });

/** hel's prompt in `project`, waiting for the first prompt. */
async function prompt(project: string, args: string[] = [], env: Record<string, string> = {}) {
  const hel = inTerminal(["-C", project, "--tools", "run_command,search_replace", "--access", "full", ...args], sim.url, { DEEPSEEK_API_KEY: KEY, NO_COLOR: "1", ...env });
  await hel.until((s) => s.includes("›"), "the prompt");
  return hel;
}

/** Waits for the `n`th prompt, the one after the answers so far. */
const prompts = (hel: Awaited<ReturnType<typeof prompt>>, n: number, what: string) => hel.until((s) => count(s, "\n› ") + (s.startsWith("› ") ? 1 : 0) >= n, what);

describe("typing and pasting", () => {
  it("a pasted block, a trailing backslash and Alt-Enter each make one instruction of several lines", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const hel = await prompt(project);
    hel.type("explain \x1b[200~line one\r\nline two\rline three\n\x1b[201~ please\r");
    await hel.until(() => sim.requests.length === 1, "the pasted instruction");
    hel.type("first\\\r");
    await hel.until((s) => s.includes("… "), "the continuation prompt");
    hel.type("second\x1b\rthird\r");
    await hel.until(() => sim.requests.length === 2, "the typed instruction");
    hel.type("\x04");
    expect(await hel.exited).toBe(0);
    expect(users(bodies()[1]!)).toEqual(["[#1] explain line one\nline two\nline three please", "[#2] first\nsecond\nthird"]);
    // On the line, the paste stood as a label, not as lines that would each be sent.
    expect(hel.screen()).toContain("› explain [3 lines #1] please");
    // The terminal is asked to mark pastes, and told to stop when hel ends.
    expect(hel.screen()).toMatch(/^\x1b\[\?2004h[^]*\x1b\[\?2004l$/);
  });

  it("a line typed while hel works is sent next, and the one being typed waits on the prompt", async () => {
    sim = await startSimulator({ script: [waitForGo, { content: "first done" }], policy: "echo" });
    const project = await tempProject();
    const hel = await prompt(project);
    hel.type("wait for go\r");
    await hel.until((s) => s.includes("while [ ! -f go ]"), "the command to start");
    hel.type("typed ahead\r");
    await hel.until((s) => s.includes("(queued, sent when hel is done: typed ahead)"), "the queued note");
    hel.type("half a line");
    await writeFile(join(project, "go"), "");
    await hel.until(() => sim.requests.length === 3, "the queued instruction's request");
    await hel.until((s) => s.includes("› half a line"), "the half line back on the prompt");
    hel.type(" done\r");
    await hel.until(() => sim.requests.length === 4, "the half line, finished");
    hel.type("\x04");
    expect(await hel.exited).toBe(0);
    expect(users(bodies()[3]!)).toEqual(["[#1] wait for go", "[#3] typed ahead", "[#4] half a line done"]);
    expect(hel.screen()).toMatch(/first done\n[^]*› typed ahead\n[^]*echo: typed ahead/);
  });

  it("Ctrl-C while hel works puts the queued lines back on the prompt instead of sending them", async () => {
    sim = await startSimulator({ script: [waitForGo], policy: "echo" });
    const project = await tempProject();
    const hel = await prompt(project);
    hel.type("wait for go\r");
    await hel.until((s) => s.includes("while [ ! -f go ]"), "the command to start");
    hel.type("kept for later\r");
    await hel.until((s) => s.includes("(queued"), "the queued note");
    hel.type("\x03");
    await hel.until((s) => /interrupted[^]*› kept for later/.test(s), "the queued line back on the prompt");
    hel.type(" after all\r");
    await hel.until(() => sim.requests.length === 2, "the line, sent");
    hel.type("\x04");
    expect(await hel.exited).toBe(0);
    expect(users(bodies()[1]!)).toEqual(["[#1] wait for go", "[#3] kept for later after all"]);
    expect(sim.requests).toHaveLength(2);
  });

  it("the arrow keys recall earlier instructions, of this run and of earlier ones, and the history holds no key", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const first = await prompt(project);
    first.type(`the key is ${KEY}\r`);
    await first.until(() => sim.requests.length === 1, "the first answer");
    first.type("two\r");
    await first.until(() => sim.requests.length === 2, "the second answer");
    await prompts(first, 3, "the third prompt");
    first.type("\x1b[A\x1b[A\r");
    await first.until(() => sim.requests.length === 3, "the recalled instruction");
    first.type("\x04");
    expect(await first.exited).toBe(0);
    // A typed key is masked like one in a file: in the request as in the history on disk.
    expect(users(bodies()[2]!).at(-1)).toBe("[#3] the key is [REDACTED]");

    const history = await readFile(join(project, ".hel", "history"), "utf8");
    expect(history).not.toContain(KEY);
    expect(
      history
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual(["the key is [REDACTED]", "two", "the key is [REDACTED]"]);

    const second = await prompt(project);
    second.type("\x1b[A\x1b[A\r");
    await second.until(() => sim.requests.length === 4, "the instruction recalled from the last run");
    second.type("\x04");
    expect(await second.exited).toBe(0);
    expect(users(bodies()[3]!)).toEqual(["[#1] two"]);
  });

  it("an empty line sends nothing", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const hel = await prompt(project);
    hel.type("   \r\r");
    await prompts(hel, 3, "two more prompts");
    hel.type("\x04");
    expect(await hel.exited).toBe(0);
    expect(sim.requests).toHaveLength(0);
  });
});

describe("slash commands", () => {
  it("/help, /model, /effort, /cost, /diff and an unknown command are run by hel, never sent", async () => {
    sim = await startSimulator({
      script: [call("search_replace", { path: "notes.txt", old_text: "old line", new_text: "new line" }), { content: "edited" }],
      policy: "echo",
    });
    const project = await tempProject();
    await writeFile(join(project, "notes.txt"), "first\nold line\nlast\n");
    const hel = await prompt(project);
    hel.type("/he\t\r");
    await hel.until((s) => s.includes("/resume [id]") && s.includes("/cost"), "the help");
    hel.type("edit the notes\r");
    await hel.until(() => sim.requests.length === 2, "the edit");
    await prompts(hel, 3, "the prompt after the edit");
    hel.type("/diff\r");
    await hel.until((s) => s.includes("notes.txt  +1 -1"), "the diff");
    hel.type("/cost\r");
    await hel.until((s) => /\nparent +2 requests, [^]*\ntotal +2 requests/.test(s), "the cost");
    // Tab completes the model from the API's list, and the effort, before Enter sends the line.
    hel.type("/model deepseek-v4-p\t\r");
    await hel.until((s) => s.includes("model deepseek-v4-pro from the next request on"), "the model note");
    hel.type("/effort no\t\r");
    await hel.until((s) => s.includes("effort none from the next request on"), "the effort note");
    hel.type("/nonsense\r");
    await hel.until((s) => s.includes("there is no command /nonsense"), "the unknown command");
    hel.type("next\r");
    // /model asked the API for its models (GET /models) before it switched.
    await hel.until(() => sim.requests.length === 4, "the next instruction");
    expect(sim.requests[2]!.body).toBeUndefined();
    hel.type("/exit\r");
    expect(await hel.exited).toBe(0);

    const screen = hel.screen();
    expect(screen).toContain("› /diff\nnotes.txt  +1 -1\n  1   first\n  2 - old line\n  2 + new line\n  3   last\n›");
    const last = bodies()[3]!;
    expect(users(last)).toEqual(["[#1] edit the notes", "[#3] next"]);
    expect(last.model).toBe("deepseek-v4-pro");
    expect(last.thinking).toEqual({ type: "disabled" });
    expect(last.max_tokens).toBe(8192);
    const id = /resume with:\s+hel --resume ([0-9a-f-]{36})/.exec(screen)![1]!;
    const snapshot = JSON.parse(await readFile(join(project, ".hel", "sessions", id, "snapshot.json"), "utf8"));
    expect(snapshot.request_config).toMatchObject({ model: "deepseek-v4-pro", effort: "none", max_output_tokens: 8192 });
  });

  it("a command file is /<name> <args>, sending its text with $ARGUMENTS; /help lists it, Tab completes it, and one named as a built-in is skipped", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const config = await realpath(await tempProject());
    await mkdir(join(project, ".hel", "commands"), { recursive: true });
    await mkdir(join(config, "hel", "commands"), { recursive: true });
    await writeFile(join(project, ".hel", "commands", "review.md"), "---\ndescription: Review a file for bugs\n---\n\nReview $ARGUMENTS for bugs.\nList each with its line.\n");
    await writeFile(join(project, ".hel", "commands", "help.md"), "not hel's help\n");
    await writeFile(join(config, "hel", "commands", "standup.md"), "Summarise what changed today.\n");
    // A description with an escape sequence, which must not reach the terminal as one.
    await writeFile(join(config, "hel", "commands", "retitle.md"), "---\ndescription: pwn \x1b]0;owned\x07 it\n---\nHi.\n");
    const hel = await prompt(project, [], { XDG_CONFIG_HOME: config });
    expect(hel.screen()).toContain("hel: the command file .hel/commands/help.md would hide hel's own /help, so it is skipped — rename it\n");
    hel.type("/help\r");
    await hel.until((s) => s.includes("completes; Ctrl-C interrupts"), "the help");
    // The path is too long for the row at 80 columns, so it goes on in the next one.
    expect(hel.screen()).toMatch(/\n\/retitle +pwn \?\]0;owned\? it\n\/review \[args\] +Review a file for bugs\n\/standup\s+\(.*\/hel\/commands\/standup\.md\)\n/);
    expect(hel.bytes()).not.toContain("\x1b]0;owned");
    hel.type("/rev\t");
    await hel.until((s) => s.endsWith("› /review"), "the completion");
    hel.type(" src/app.ts\r");
    await hel.until(() => sim.requests.length === 1, "the review");
    await prompts(hel, 3, "the prompt after the review");
    hel.type("/standup\r");
    await hel.until(() => sim.requests.length === 2, "the standup");
    hel.type("/exit\r");
    expect(await hel.exited).toBe(0);
    expect(users(bodies()[1]!)).toEqual(["[#1] Review src/app.ts for bugs.\nList each with its line.", "[#2] Summarise what changed today."]);
  });

  it("/new starts a new session; /resume picks a saved one from a numbered list and shows where it stood", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const hel = await prompt(project);
    hel.type("in the first session\r");
    await hel.until(() => sim.requests.length === 1, "the first answer");
    hel.type("/new\r");
    await hel.until((s) => count(s, "resume with:") === 1, "the first session's end");
    hel.type("in the second session\r");
    await hel.until(() => sim.requests.length === 2, "the second answer");
    expect(users(bodies()[1]!)).toEqual(["[#1] in the second session"]);
    hel.type("/sessions\r");
    await hel.until((s) => /\nID +UPDATED +TURNS +TOKENS +FIRST INSTRUCTION\n[0-9a-f]{8} .* {2}in the second session\n[0-9a-f]{8} .* in the first session\nthis session: /.test(s), "the list");
    hel.type("/resume\r");
    await hel.until((s) => s.includes("session to resume (1-1"), "the picker");
    // The session in use is not offered.
    expect(hel.screen()).toMatch(/\n1\. [0-9a-f]{8} .* in the first session\n/);
    hel.type("1\r");
    await hel.until((s) => s.includes("── the last 1 of 1 instructions ──\n› in the first session\n  echo: in the first session"), "the last exchange");
    hel.type("back again\r");
    await hel.until(() => sim.requests.length === 3, "the resumed answer");
    hel.type("\x04");
    expect(await hel.exited).toBe(0);
    expect(users(bodies()[2]!)).toEqual(["[#1] in the first session", "[#2] back again"]);
  });

  it("hel --resume without an id opens the picker in a terminal, and refuses without one", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    expect((await runHel({ args: ["-C", project, "--tools", "none", "older"], baseUrl: sim.url })).code).toBe(0);
    expect((await runHel({ args: ["-C", project, "--tools", "none", "newer"], baseUrl: sim.url })).code).toBe(0);
    const hel = inTerminal(["-C", project, "--tools", "none", "--resume"], sim.url, { NO_COLOR: "1" });
    await hel.until((s) => s.includes("session to resume (1-2"), "the picker");
    expect(hel.screen()).toMatch(/\n1\. [0-9a-f]{8} .* newer\n2\. [0-9a-f]{8} .* older\n/);
    hel.type("2\r");
    await hel.until((s) => s.includes("› older\n  echo: older"), "the last exchange");
    hel.type("again\r");
    await hel.until(() => sim.requests.length === 3, "the resumed answer");
    hel.type("\x04");
    expect(await hel.exited).toBe(0);
    expect(users(bodies()[2]!)).toEqual(["[#1] older", "[#2] again"]);

    const piped = await runHel({ args: ["-C", project, "--resume"], baseUrl: sim.url });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe("hel: --resume needs a session id when stdin is not a terminal — `hel sessions ls` lists them\n");
    // An id still works as before.
    const id = /resume with:\s+hel --resume (\S+)/.exec(hel.screen())![1]!;
    expect((await runHel({ args: ["-C", project, "--tools", "none", "--resume", id, "by id"], baseUrl: sim.url })).code).toBe(0);
    expect(users(bodies()[3]!)).toEqual(["[#1] older", "[#2] again", "[#3] by id"]);
  });
});

describe("through pipes", () => {
  /** hel in a shell pipeline, as `echo "$log" | hel "why?"` runs it. */
  const shell = (script: string, project: string): Promise<{ code: number; stderr: string }> =>
    new Promise((resolve) =>
      execFile("sh", ["-c", script], { env: { ...helEnv(sim.url), HEL, P: project, NODE: process.execPath } }, (error, _stdout, stderr) => resolve({ code: typeof error?.code === "number" ? error.code : 0, stderr })),
    );

  it("piped text plus a prompt is one instruction: the prompt, then the text in a fence it cannot close", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const result = await shell(`printf 'npm ERR! boom\\n\`\`\`\\nat x.js:3\\n' | "$NODE" "$HEL" -C "$P" --tools none "why does this fail?"`, project);
    expect(result.code).toBe(0);
    expect(bodies()[0]!.messages.slice(1)).toEqual([{ role: "user", content: "[#1] why does this fail?\n\n````\nnpm ERR! boom\n```\nat x.js:3\n````" }]);
  });

  it("hel - reads all of stdin as one instruction; without a prompt each line is a turn", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    expect((await shell(`printf 'do this\\nand that\\n' | "$NODE" "$HEL" -C "$P" --tools none -`, project)).code).toBe(0);
    expect(users(bodies()[0]!)).toEqual(["[#1] do this\nand that"]);
    expect((await shell(`printf 'one\\n\\n  \\ntwo\\n' | "$NODE" "$HEL" -C "$P" --tools none`, project)).code).toBe(0);
    expect(sim.requests).toHaveLength(3);
    expect(users(bodies()[2]!)).toEqual(["[#1] one", "[#2] two"]);
  });

  it("an empty instruction is a usage error and sends nothing", async () => {
    sim = await startSimulator({ policy: "echo" });
    const project = await tempProject();
    const blank = await runHel({ args: ["-C", project, "  "], baseUrl: sim.url });
    expect(blank.code).toBe(2);
    expect(blank.stderr).toBe("hel: the instruction is empty — give hel something to do, or run it without one for the interactive prompt\n");
    const dash = await shell(`printf '\\n' | "$NODE" "$HEL" -C "$P" -`, project);
    expect(dash.code).toBe(2);
    expect(dash.stderr).toBe("hel: stdin was empty, so there is no instruction — pipe one in, or give it as an argument\n");
    expect(sim.requests).toHaveLength(0);
  });
});

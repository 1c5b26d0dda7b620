// run_command with real processes (under --access full, so the sandbox is not what is tested here; see
// command-sandbox.test.ts): how it waits, what it ends, what the command sees, and what the model gets.
import { readlinkSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { groupHasLiveMembers } from "../../../src/tools/command/process-group.js";
import { readFileTool } from "../../../src/tools/file/read-file.js";
import { executeToolCall } from "../../../src/tools/registry.js";
import { runCommandTool, type RunCommandArgs } from "../../../src/tools/command/run-command.js";
import { commandHeadline, formatCommandResult } from "../../../src/tools/command/result.js";
import type { Access, CommandDetails, ProcessGroup, ToolContext } from "../../../src/tools/types.js";
import { running } from "../../helpers/processes.js";
import { waitFor } from "../../helpers/wait.js";
import { toolProject } from "../../helpers/tools.js";

const KEY = "sk-test-key-7f3a9c21";

async function project(access: Access = "full") {
  const p = await toolProject(access);
  p.ctx.policy.secrets = [KEY];
  return p;
}

const run = (ctx: ToolContext, args: RunCommandArgs) => runCommandTool.run(args, ctx);
/** The result and the details told beside it, whose headline is the result's first line. */
async function runWithDetails(ctx: ToolContext, args: RunCommandArgs): Promise<{ out: string; details: CommandDetails | undefined }> {
  let details: CommandDetails | undefined;
  const out = await run({ ...ctx, report: { ...ctx.report, recordDetails: (told) => (details = told as CommandDetails) } }, args);
  if (details) expect(out.split("\n")[0]).toBe(commandHeadline(details));
  return { out, details };
}
const HEADER = /^exit code (-?\d+) · \d+\.\d\d s/;

const savedEnv = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
});

describe("run_command: waiting and ending", () => {
  it("opens with the exit code and wall time, then stdout and stderr as they came", async () => {
    const { ctx } = await project();
    const { out, details } = await runWithDetails(ctx, { command: "echo one; sleep 0.1; echo two >&2; sleep 0.1; echo three; exit 7" });
    expect(details).toEqual({ kind: "command", exitCode: 7, signal: null, durationMs: expect.any(Number), timeoutS: 120, timedOut: false, interrupted: false });
    expect(details!.durationMs).toBeGreaterThanOrEqual(200);
    expect(out).toMatch(HEADER);
    expect(out.split("\n")).toEqual([expect.stringMatching(/^exit code 7 · \d+\.\d\d s$/), "one", "two", "three"]);
  });

  it("gives a command that waits for input end of file", async () => {
    const { ctx } = await project();
    const out = await run(ctx, { command: 'read -r line; echo "read [$line] status $?"; cat; echo after cat' });
    expect(out.split("\n").slice(1)).toEqual(["read [] status 1", "after cat"]);
  });

  it("returns when the command exits, not when a background child does, and ends that child", async () => {
    const { ctx } = await project();
    let group: ProcessGroup | undefined;
    let aliveAtRelease: boolean | undefined;
    ctx.session.trackCommand = async (g) => {
      group = g;
      return async () => void (aliveAtRelease = groupHasLiveMembers(g.pgid));
    };
    const out = await run(ctx, { command: "sleep 3001 & echo started" });
    expect(out.split("\n").slice(1)).toEqual(["started"]);
    expect(running("sleep 3001")).toEqual([]);
    // The session was told of the group, and let go of it only once nothing in it ran.
    expect(group?.pgid).toBeGreaterThan(1);
    expect(aliveAtRelease).toBe(false);
  });

  it("ends the whole group on timeout, SIGKILL for what ignores SIGTERM", async () => {
    const { ctx } = await project();
    const { out, details } = await runWithDetails(ctx, { command: "sleep 3002 & trap '' TERM; echo waiting; sleep 3003", timeout_s: 0.5 });
    expect(details).toMatchObject({ exitCode: null, signal: null, timeoutS: 0.5, timedOut: true, interrupted: false });
    expect(out.split("\n")).toEqual([
      "timed out after 0.5 s: the command and every process it started were ended",
      "If it needs longer and is not waiting for input, run it again with a larger timeout_s (at most 600).",
      "waiting",
    ]);
    // Its own sleeps only: other test files run commands of their own at the same time.
    expect([...running("sleep 3002"), ...running("sleep 3003")]).toEqual([]);
  });

  it("ends the whole group when interrupted, and says the user stopped it", async () => {
    const { ctx } = await project();
    const controller = new AbortController();
    ctx.signal = controller.signal;
    ctx.report.onOutput = (text) => {
      if (text.includes("ready")) controller.abort();
    };
    const { out, details } = await runWithDetails(ctx, { command: "sleep 3004 & echo ready; sleep 3005" });
    expect(details).toMatchObject({ exitCode: null, timedOut: false, interrupted: true });
    expect(out.split("\n")).toEqual([expect.stringMatching(/^interrupted after \d+\.\d\d s: the command and every process it started were ended$/), "The user stopped it (Ctrl-C). Ask before running it again.", "ready"]);
    expect([...running("sleep 3004"), ...running("sleep 3005")]).toEqual([]);
  });

  it("ends 200 background processes with the group", async () => {
    const { ctx } = await project();
    const out = await run(ctx, { command: "for i in $(seq 200); do sleep 3006 & done; echo launched $(jobs -p | wc -l)" });
    expect(out.split("\n").slice(1)).toEqual(["launched 200"]);
    expect(running("sleep 3006")).toEqual([]);
  });

  it("reports a command that closes stdout early by its stderr and exit code", async () => {
    const { ctx } = await project();
    const out = await run(ctx, { command: "echo first; exec 1>&-; echo closed >&2; sleep 0.2; echo still here >&2; exit 4" });
    expect(out.split("\n")).toEqual([expect.stringMatching(/^exit code 4 /), "first", "closed", "still here"]);
  });

  it("says how a command killed by a signal ended: as the shell reports it from inside the namespace, or by the signal", async () => {
    const { ctx } = await project();
    const { out, details } = await runWithDetails(ctx, { command: "kill -SEGV $$" });
    expect(out).toMatch(/^exit code 139 · \d+\.\d\d s\n\(no output\)$/);
    expect(details).toMatchObject({ exitCode: 139, signal: null, timedOut: false, interrupted: false });
    const output = { head: "", bytes: 0, lines: 0, nonText: 0, omitted: null, spillPath: null, spillError: null };
    const ending = { kind: "exit" as const, code: null, signal: "SIGSEGV" as const };
    expect(formatCommandResult({ ending, wallMs: 20, timeoutS: 1, output, spillPath: null, sandbox: null, gitPutBack: [] })).toBe("killed by SIGSEGV · 0.02 s\n(no output)");
  });

  it("ends what the command moved out of its group (setsid, a double fork, nohup) with the call", async () => {
    const { ctx } = await project();
    const out = await run(ctx, { command: "readlink /proc/self/ns/pid; setsid sleep 3020 & (sleep 3021 &) ; nohup sleep 3022 >/dev/null 2>&1 & echo started" });
    // A PID namespace of its own holds them.
    const [namespace, ...rest] = out.split("\n").slice(1);
    expect(namespace).toMatch(/^pid:\[\d+\]$/);
    expect(namespace).not.toBe(readlinkSync("/proc/self/ns/pid"));
    expect(rest).toEqual(["started"]);
    expect(["3020", "3021", "3022"].flatMap((n) => running(`sleep ${n}`))).toEqual([]);
    const timedOut = await run(ctx, { command: "setsid sleep 3023 & sleep 3024", timeout_s: 0.5 });
    expect(timedOut.split("\n")[0]).toBe("timed out after 0.5 s: the command and every process it started were ended");
    expect([...running("sleep 3023"), ...running("sleep 3024")]).toEqual([]);
  });
});

describe("run_command: what the command sees", () => {
  it("runs without credentials in its environment and with the non-interactive settings", async () => {
    const { ctx } = await project();
    Object.assign(process.env, { DEEPSEEK_API_KEY: KEY, GH_TOKEN: "t", MY_SECRET_THING: "s", DB_PASSWORD: "p", npm_config_api_key: "k", HEL_PLAIN_SETTING: "kept", PAGER: "less" });
    const out = await run(ctx, { command: "env" });
    const names = new Map(
      out
        .split("\n")
        .slice(1)
        .map((line) => [line.split("=")[0]!, line.slice(line.indexOf("=") + 1)]),
    );
    for (const hidden of ["DEEPSEEK_API_KEY", "GH_TOKEN", "MY_SECRET_THING", "DB_PASSWORD", "npm_config_api_key"]) expect(names.has(hidden)).toBe(false);
    expect(names.get("HEL_PLAIN_SETTING")).toBe("kept");
    expect(Object.fromEntries(["GIT_EDITOR", "GIT_TERMINAL_PROMPT", "PAGER", "GIT_PAGER", "NO_COLOR"].map((n) => [n, names.get(n)]))).toEqual({
      GIT_EDITOR: "true",
      GIT_TERMINAL_PROMPT: "0",
      PAGER: "cat",
      GIT_PAGER: "cat",
      NO_COLOR: "1",
    });
    expect(out).not.toContain(KEY);
  });

  it("runs in its own session, without a terminal", async () => {
    const { ctx } = await project();
    const out = await run(ctx, { command: 'ps -o pid=,sid= -p $$; tty; [ -t 0 ] || echo "stdin is not a terminal"' });
    // The session hel made for it, whose leader (bubblewrap, holding the PID namespace) is outside the
    // namespace and so has no number there.
    const [, sid] = out.split("\n")[1]!.trim().split(/\s+/);
    expect(sid).toBe("0");
    expect(out.split("\n").slice(2)).toEqual(["not a tty", "stdin is not a terminal"]);
  });

  it("runs in workdir, a directory inside the project", async () => {
    const { ctx, dir } = await project();
    await mkdir(path.join(dir, "sub", "deeper"), { recursive: true });
    expect(await run(ctx, { command: "pwd", workdir: "sub/deeper" })).toMatch(new RegExp(`\\n${path.join(dir, "sub", "deeper")}$`));
  });
});

describe("run_command: what the model gets", () => {
  it("masks the API key in the output, a key cut between two writes included", async () => {
    const { ctx, dir } = await project();
    await writeFile(path.join(dir, ".env"), `DEEPSEEK_API_KEY=${KEY}\n`);
    const out = await run(ctx, { command: `cat .env; printf '${KEY.slice(0, 9)}'; sleep 0.2; printf '${KEY.slice(9)} done\\n'` });
    expect(out.split("\n").slice(1)).toEqual(["DEEPSEEK_API_KEY=[REDACTED]", "[REDACTED] done"]);
  });

  it("keeps the head and tail of a long output; the whole of it, key masked, is in spill/ for read_file", async () => {
    const { ctx, dir } = await project();
    await writeFile(path.join(dir, ".env"), `${KEY}\n`);
    const out = await run(ctx, { command: "cat .env; seq 1 100000; cat .env" });
    expect(out).not.toContain(KEY);
    const [header, ...rest] = out.split("\n");
    expect(header).toMatch(/^exit code 0 · \d+\.\d\d s$/);
    expect(rest.slice(0, 3)).toEqual(["[REDACTED]", "1", "2"]);
    expect(rest.slice(-2)).toEqual(["100000", "[REDACTED]"]);
    const note = /^\[… ([\d,]+) lines \(([\d.]+ KB)\) left out; the whole output \(100,002 lines, ([\d.]+ KB)\) is in (\S+); read the left-out part with read_file (\{.*\}) …\]$/.exec(
      rest.find((line) => line.startsWith("[…"))!,
    );
    expect(note).not.toBeNull();
    const spillPath = note![4]!;
    expect(spillPath).toMatch(/^\.hel\/sessions\/s1\/spill\/[\w-]+\.txt$/);
    const whole = await readFile(path.join(dir, spillPath), "utf8");
    expect(whole).toBe(`[REDACTED]\n${Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join("")}[REDACTED]\n`);
    // The read_file call reads on from the first line left out.
    const call = JSON.parse(note![5]!) as { path: string; offset: number };
    const headLines = rest.indexOf(rest.find((line) => line.startsWith("[…"))!);
    expect(call).toEqual({ path: spillPath, offset: headLines + 1 });
    const page = await readFileTool.run(call, ctx);
    expect(page.split("\n")[0]).toBe(`${String(headLines + 1).padStart(6)}\t${headLines}`);
    expect(Buffer.byteLength(out)).toBeLessThan(32 * 1024);
  });

  it("shows of a long failing log each kind of failing line once or twice, with how many more are alike, then the tail", async () => {
    const { ctx } = await project();
    // A compiler's one error in 300 files, one other error among them, and its closing lines.
    const script = [
      'i=0; while [ $i -lt 300 ]; do echo "src/m$i/f$i.ts($i,7): error TS2345: Argument of type string is not assignable"; i=$((i+1)); done',
      'echo "src/x/y.ts(3,1): error TS2322: Type number is not assignable to type string"',
      'i=0; while [ $i -lt 40 ]; do echo "src/m$i/f$i.ts($i,7): error TS2345: Argument of type string is not assignable"; i=$((i+1)); done',
      'echo "note: run with LC_ALL=C"',
      "exit 2",
    ].join("\n");
    const out = await run(ctx, { command: script });
    const lines = out.split("\n");
    const note = lines.findIndex((line) => line.startsWith("[…"));
    // The head is whole lines within its bytes; the failing lines of the middle follow the note.
    expect(lines.slice(1, note).join("\n").length).toBeLessThanOrEqual(1024);
    expect(lines[note]).toMatch(/^\[… [\d,]+ lines \([\d.]+ KB\) left out, [\d,]+ of them naming an error or failure \(each kind follows, with how many more are like it, numbered\); the whole output/);
    const tailAt = lines.indexOf("[…]");
    const failing = lines.slice(note + 1, tailAt);
    const tail = lines.slice(tailAt + 1);
    expect(tail.at(-1)).toBe("note: run with LC_ALL=C");
    const tailErrors = tail.filter((line) => line.includes("error TS2345")).length;
    const firstShown = note; // the head's lines are numbered 1…note-1, so the middle starts at line `note`
    expect(failing).toEqual([
      `${firstShown}: src/m${firstShown - 1}/f${firstShown - 1}.ts(${firstShown - 1},7): error TS2345: Argument of type string is not assignable`,
      `${firstShown + 1}: src/m${firstShown}/f${firstShown}.ts(${firstShown},7): error TS2345: Argument of type string is not assignable [and ${340 - (firstShown + 1) - tailErrors} more lines like it]`,
      "301: src/x/y.ts(3,1): error TS2322: Type number is not assignable to type string",
    ]);
    const total = Number(/, ([\d,]+) of them naming/.exec(lines[note]!)![1]!.replace(/,/g, ""));
    expect(total).toBe(341 - (firstShown - 1) - tailErrors);
    expect(Buffer.byteLength(tail.join("\n"))).toBeLessThanOrEqual(3 * 1024);
  });

  it("turns binary output into text, saying how much was not text", async () => {
    const { ctx } = await project();
    const out = await run(ctx, { command: "printf 'a\\000b\\377\\376\\200c\\033[31mred\\033[0m\\n'; head -c 100000 /dev/zero; echo end" });
    expect(out.split("\n")).toEqual([expect.stringMatching(/^exit code 0 · \d+\.\d\d s; 100,004 non-text characters in the output \(binary data, control codes\) replaced by \uFFFD or dropped$/), "ab\uFFFDcred", "end"]);
  });
});

describe("run_command: bad input", () => {
  const call = (args: unknown) => ({ id: "c1", type: "function" as const, function: { name: "run_command", arguments: JSON.stringify(args) } });

  it.each([
    [{ command: "" }, /command: the command is empty: give the bash command line to run, e\.g\. "npm test"/],
    [{ command: "  \n " }, /command: the command is empty/],
    [{ command: "echo a\u0000b" }, /command: the command contains a NUL character/],
    [{ command: "true", timeout_s: 0 }, /timeout_s: 0 is not a timeout: give seconds, more than 0 and at most 600, or leave timeout_s out for 120/],
    [{ command: "true", timeout_s: -5 }, /timeout_s: -5 is not a timeout/],
    [{ command: "true", timeout_s: 601 }, /timeout_s: 601 is not a timeout/],
    [{ command: "true", timeout_s: "60" }, /timeout_s: Invalid input: expected number, received string/],
  ])("refuses %j with a result that says what to send", async (args, message) => {
    const { ctx } = await project();
    const result = await executeToolCall(call(args), [runCommandTool], ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Error: invalid arguments for run_command:\n- /);
    expect(result.content).toMatch(message);
  });

  it.each([
    ["../outside", /^Error: "\.\.\/outside" is outside the project directory/],
    ["/", /^Error: "\/" is outside the project directory/],
    [".hel", /^Error: "\.hel" is in \.hel\/, hel's own state/],
    ["missing", /^Error: workdir "missing" does not exist: give a directory inside the project, or leave workdir out/],
    ["a.txt", /^Error: workdir "a\.txt" is a file, not a directory/],
  ])("refuses workdir %s and runs nothing", async (workdir, message) => {
    const { ctx, dir } = await project();
    await writeFile(path.join(dir, "a.txt"), "a\n");
    const result = await executeToolCall(call({ command: "touch ran", workdir }), [runCommandTool], ctx);
    expect(result).toEqual({ content: expect.stringMatching(message), isError: true });
    await expect(readFile(path.join(dir, "ran"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses to run unconfined under edit where there is no sandbox program, saying how to get one", async () => {
    const { ctx, dir } = await project("edit");
    process.env.PATH = path.join(dir, "no-programs-here");
    const result = await executeToolCall(call({ command: "touch ran" }), [runCommandTool], ctx);
    expect(result).toEqual({
      content:
        "Error: no command was run: under --access edit hel runs commands only inside a sandbox, and this machine has none. Tell the user to install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap) or use --access full to run commands without a sandbox; meanwhile use the other tools.",
      isError: true,
    });
    await expect(readFile(path.join(dir, "ran"))).rejects.toThrow(/ENOENT/);
  });

  it("keeps working after each of those", async () => {
    const { ctx } = await project();
    await waitFor(async () => (await run(ctx, { command: "echo fine" })).endsWith("\nfine"), "a plain command");
  });
});

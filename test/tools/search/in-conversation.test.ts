// grep and find_files in a whole conversation (opened in this process, against the simulator): hel
// offers them with --tools, the model receives their exact results in the next request, the terminal
// shows each call as one count line, and --json and --record carry the calls like any other tool's.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../sim/index.js";
import type { ChatRequest, Message } from "../../../src/wire/messages.js";
import { runInProcess } from "../../helpers/conversation.js";
import { tempProject } from "../../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const bodies = () => sim.requests.map((r) => r.body as ChatRequest);
const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
/** The id of the call the request's last tool result answers. */
const lastCallId = (body: ChatRequest) => (body.messages.at(-2) as Extract<Message, { role: "assistant" }>).tool_calls![0]!.id;

async function project(): Promise<string> {
  const dir = await tempProject();
  await mkdir(join(dir, "src"));
  await mkdir(join(dir, "node_modules", "pkg"), { recursive: true });
  await writeFile(join(dir, ".gitignore"), "dist/\n");
  await mkdir(join(dir, "dist"));
  await writeFile(join(dir, "src", "a.ts"), "export const needle = 1;\n");
  await writeFile(join(dir, "src", "b.ts"), "// no\n// needle here\n");
  await writeFile(join(dir, "dist", "a.js"), "needle built\n");
  await writeFile(join(dir, "node_modules", "pkg", "index.js"), "needle module\n");
  return dir;
}

describe("grep through the CLI", () => {
  it("--tools grep: the model gets the exact results, the terminal one line per call, --json and --record the calls", async () => {
    sim = await startSimulator({
      script: [{ tool_calls: [call("grep", { pattern: "needle", glob: "*.ts" })] }, { tool_calls: [call("grep", { pattern: "needle(" })] }, { content: "found it" }],
    });
    const dir = await project();
    const out = await tempProject();
    const result = await runInProcess({ args: ["-C", dir, "--tools", "grep", "--json", "--record", out, "where is needle?"], baseUrl: sim.url });
    expect(result.code).toBe(0);

    expect(bodies()[0]!.tools!.map((t) => t.function.name)).toEqual(["grep"]);
    const [, second, third] = bodies();
    expect(second!.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: lastCallId(second!),
      content: "[#2] src/a.ts:1: export const needle = 1;\nsrc/b.ts:2: // needle here\n[2 matches in 2 files]",
    });
    expect(third!.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: lastCallId(third!),
      content: "[#3] Error: the pattern is not a valid JavaScript regular expression (Unterminated group). Fix it and call grep again; to match one of ( ) [ ] { } . * + ? ^ $ | \\ literally, put a \\ before it",
    });

    const lines = result.stderr.split("\n");
    expect(lines).toContain('→ grep "needle" (*.ts) — 2 matches in 2 files');
    const failed = lines.indexOf('→ grep "needle(" — failed');
    expect(failed).toBeGreaterThan(-1);
    expect(lines[failed + 1]).toMatch(/^ {2}✗ Error: the pattern is not a valid JavaScript regular expression \(Unterminated group\)\./);
    expect(result.stderr).not.toContain("src/a.ts:1:");

    expect(JSON.parse(result.stdout)).toMatchObject({ answer: "found it", exit_reason: "completed", usage: { requests: 3 } });
    const record = JSON.parse(await readFile(join(out, "record.json"), "utf8"));
    expect(record.tool_calls).toEqual([
      expect.objectContaining({ agent: "parent", name: "grep", arguments: '{"pattern":"needle","glob":"*.ts"}' }),
      expect.objectContaining({ agent: "parent", name: "grep", arguments: '{"pattern":"needle("}' }),
    ]);
  });

  it("--tools find_files lists newest first and works under --access read-only", async () => {
    sim = await startSimulator({ script: [{ tool_calls: [call("find_files", { pattern: "**/*.ts" })] }, { content: "listed" }] });
    const dir = await project();
    const result = await runInProcess({ args: ["-C", dir, "--tools", "find_files", "--access", "read-only", "list"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(bodies()[1]!.messages.at(-1)!.content).toMatch(/^\[#2\] src\/[ab]\.ts\nsrc\/[ab]\.ts\n\[2 files, newest first\]$/);
    expect(result.stderr.split("\n")).toContain('→ find_files "**/*.ts" — 2 files, newest first');
  });

  it("keeps a plain instruction's first request under 1,500 tokens with all the default tools (issue 44)", async () => {
    sim = await startSimulator({ script: [{ content: "hello" }] });
    const dir = await tempProject();
    const result = await runInProcess({ args: ["-C", dir, "hi"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const first = sim.requests[0]!.body as ChatRequest;
    expect(first.tools!.map((t) => t.function.name)).toEqual(["read_file", "search_replace", "run_command", "grep", "find_files", "fold", "recall", "ask", "todo", "job_output", "job_kill"]);
    // ceil(characters / 4) of the rendered tools and messages.
    expect(Math.ceil(JSON.stringify({ messages: first.messages, tools: first.tools }).length / 4)).toBeLessThan(1500);
  });
});

// The API key never comes back out of hel: not from a server that quotes the request's headers in its
// error (some proxies do), nor from a tool error quoting what the model sent. The built CLI against the
// simulator over HTTP; everything hel printed or wrote is searched for the key.
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

const KEY = "sk-echo-0123456789abcdef0123456789abcdef";

let sim: Simulator;
afterEach(async () => sim?.close());

/** Every file under `dir`, with its text. */
async function filesUnder(dir: string): Promise<{ file: string; text: string }[]> {
  const names = await readdir(dir, { recursive: true });
  return Promise.all(names.map(async (name) => ({ file: join(dir, name), text: await readFile(join(dir, name), "utf8").catch(() => "") })));
}

it("a server error quoting the Authorization header reaches no output, record or snapshot", async () => {
  const echo = { fault: { kind: "status", status: 500, echoHeaders: true } } as const;
  sim = await startSimulator({ script: [{ content: "first answer" }, echo, echo, echo, echo] });
  const project = await tempProject();
  const out = await tempProject();
  const result = await runHel({ args: ["-C", project, "--record", out, "--json"], input: "first\nsecond\n", baseUrl: sim.url, env: { DEEPSEEK_API_KEY: KEY } });

  expect(result.code).toBe(1);
  expect(sim.requests).toHaveLength(5);
  expect(sim.requests[4]!.headers.authorization).toBe(`Bearer ${KEY}`);
  // The server's text is shown, with the key taken out of it.
  const failed = result.stderr.split("\n").filter((line) => line.startsWith("hel: "));
  expect(failed).toEqual([expect.stringMatching(/^hel: DeepSeek's server failed \(500: Server Error: .*authorization: Bearer \[REDACTED\].*\) after 4 tries — /)]);
  const requests = (await readFile(join(out, "raw", "requests.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { status: number; error?: string });
  expect(requests.map((r) => r.status)).toEqual([200, 500, 500, 500, 500]);
  expect(requests.at(-1)!.error).toContain("authorization: Bearer [REDACTED]");

  expect(result.stdout).not.toContain(KEY);
  expect(result.stderr).not.toContain(KEY);
  const written = [...(await filesUnder(join(project, ".hel"))), ...(await filesUnder(out))];
  expect(written.some(({ file }) => file.endsWith("snapshot.json"))).toBe(true);
  expect(written.some(({ file }) => file.endsWith("requests.jsonl"))).toBe(true);
  for (const { file, text } of written) expect(text, file).not.toContain(KEY);
});

it("tool errors that quote the model's call (its tool name, an argument key, its JSON) are redacted like results", async () => {
  sim = await startSimulator({
    script: [
      {
        tool_calls: [
          { name: KEY, arguments: "{}" },
          { name: "read_file", arguments: JSON.stringify({ path: "a.txt", [KEY]: 1 }) },
          { name: "read_file", arguments: `{"path": ${KEY}}` },
        ],
      },
      { content: "done" },
    ],
  });
  const project = await tempProject();
  const result = await runHel({ args: ["-C", project, "go"], baseUrl: sim.url, env: { DEEPSEEK_API_KEY: KEY } });

  expect(result.code).toBe(0);
  const results = (sim.requests[1]!.body as ChatRequest).messages.filter((m) => m.role === "tool").map((m) => m.content);
  expect(results).toEqual([
    expect.stringMatching(/^\[#2\] Error: unknown tool "\[REDACTED\]"\. Available tools: /),
    expect.stringMatching(/^\[#3\] Error: invalid arguments for read_file:\n- arguments: Unrecognized key: "\[REDACTED\]"\n/),
    // The parser quotes the text around the error cut short: the start of the key would show.
    expect.stringMatching(/^\[#4\] Error: the arguments of read_file are not valid JSON \(Unexpected token .*"\{"path": \[REDACTED/),
  ]);
  for (const text of results) expect(text).not.toContain(KEY.slice(0, "sk-echo".length));
});

// hel end to end in this process as the command runs it (helpers/conversation.ts): the simulator over
// real HTTP, a real project directory. The request bodies the model receives are asserted turn by turn.
// What only a process of its own shows (Node's warnings, the API key in the process's environment) is
// test/e2e/run.test.ts's.
import { readFile, readdir, writeFile } from "node:fs/promises";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createGzip } from "node:zlib";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const bodies = () => sim.requests.map((r) => r.body as ChatRequest);
const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });

describe("a one-shot edit", () => {
  let project: string;
  beforeAll(async () => {
    project = await tempProject();
    await writeFile(join(project, "HEL.md"), "Always keep answers short.\n");
    await writeFile(join(project, "a.txt"), "hello wrold\n");
  });

  it("sends the conversation turn by turn, edits the file and prints the answer", async () => {
    sim = await startSimulator({
      script: [
        { reasoning: "read first", tool_calls: [call("read_file", { path: "a.txt" })] },
        { content: "Fixing.", reasoning: "fix it", tool_calls: [call("search_replace", { path: "a.txt", old_text: "wrold", new_text: "world" })] },
        { content: "Fixed the typo in a.txt." },
      ],
    });
    const result = await runHelInProcess({ args: ["-C", project, "fix the typo in a.txt"], baseUrl: sim.url });
    expect(result.stderr).not.toMatch(/hel: /);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Fixed the typo in a.txt.\n");
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("hello world\n");

    const [first, second, third] = bodies();
    expect(bodies()).toHaveLength(3);
    // The system prompt: environment and HEL.md, identical bytes in every request.
    const system = first!.messages[0]!;
    expect(system.role).toBe("system");
    expect(system.content).toContain(`Project directory: ${project}`);
    expect(system.content).toContain("Always keep answers short.");
    expect(system.content).toMatch(/Date: \d{4}-\d{2}-\d{2}\n/);
    expect(first).toEqual({
      model: "deepseek-flash",
      messages: [system, { role: "user", content: "[#1] fix the typo in a.txt" }],
      tools: first!.tools,
      thinking: { type: "enabled" },
      reasoning_effort: "high",
      max_tokens: 65536,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(first!.tools!.map((t) => t.function.name)).toEqual(["read_file", "search_replace", "run_command", "grep", "find_files", "fold", "recall", "ask", "todo"]);

    const assistant1 = second!.messages[2] as Extract<Message, { role: "assistant" }>;
    expect(assistant1).toMatchObject({ role: "assistant", reasoning_content: "read first", tool_calls: [{ type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } }] });
    expect(second!.messages[3]).toEqual({ role: "tool", tool_call_id: assistant1.tool_calls![0]!.id, content: expect.stringMatching(/^\[#2\] [^]*hello wrold/) });
    expect(second!.messages).toHaveLength(4);
    // Each request extends the previous one: same leading messages, same tools, same settings.
    expect(second!.messages.slice(0, 2)).toEqual(first!.messages);
    expect(third!.messages.slice(0, 4)).toEqual(second!.messages);
    expect(third!.messages[4]).toMatchObject({ role: "assistant", content: "Fixing.", reasoning_content: "fix it" });
    expect(third!.messages[5]).toMatchObject({ role: "tool", content: expect.stringMatching(/^\[#3\] [^]*line 1/i) });
    expect(third!.tools).toEqual(first!.tools);
    expect(JSON.stringify(third!.messages[0])).toBe(JSON.stringify(system));
    expect(result.stderr).toMatch(/resume with: hel --resume [0-9a-f-]{36}/);
    // The context size shown after the turn: the last request's real input plus the final answer's estimate.
    const context = Number(/context ~([\d,]+) tokens/.exec(result.stderr)?.[1]?.replaceAll(",", ""));
    const lastInput = sim.requests[2]!.usage!.prompt_tokens;
    expect(context).toBeGreaterThan(lastInput);
    expect(context).toBeLessThan(lastInput + 50);
  });
});

describe("request settings", () => {
  it("--effort none turns thinking off with an 8192-token default; --tools none sends no tools", async () => {
    sim = await startSimulator({ script: [{ content: "ok" }] });
    const project = await tempProject();
    const result = await runHelInProcess({ args: ["-C", project, "--effort", "none", "--tools", "none", "--model", "deepseek-v4-pro", "hi"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const body = bodies()[0]!;
    expect(body.thinking).toEqual({ type: "disabled" });
    expect(body).not.toHaveProperty("reasoning_effort");
    expect(body).not.toHaveProperty("tools");
    expect(body.max_tokens).toBe(8192);
    expect(body.model).toBe("deepseek-v4-pro");
  });

  it("--max-output-tokens sets max_tokens and AGENTS.md is used when there is no HEL.md", async () => {
    sim = await startSimulator({ script: [{ content: "ok" }] });
    const project = await tempProject();
    await writeFile(join(project, "AGENTS.md"), "Rule from AGENTS.md\n");
    await runHelInProcess({ args: ["-C", project, "--max-output-tokens", "1000", "--tools", "read_file,read_file", "hi"], baseUrl: sim.url });
    expect(bodies()[0]!.max_tokens).toBe(1000);
    expect(bodies()[0]!.tools!.map((t) => t.function.name)).toEqual(["read_file"]);
    expect(bodies()[0]!.messages[0]!.content).toContain("Rule from AGENTS.md");
  });
});

describe("stdin and --json", () => {
  it("each stdin line is a turn of one conversation; --json prints one object per instruction", async () => {
    sim = await startSimulator({ script: [{ content: "first answer" }, { content: "second answer" }] });
    const project = await tempProject();
    const result = await runHelInProcess({ args: ["-C", project, "--json"], input: "first question\n\nsecond question\n", baseUrl: sim.url });
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    const [a, b] = lines;
    expect(a).toMatchObject({ answer: "first answer", exit_reason: "completed", usage: { requests: 1 } });
    expect(b.session_id).toBe(a.session_id);
    const usage = sim.requests[1]!.usage!;
    const figures = {
      requests: 1,
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      prompt_cache_hit_tokens: usage.prompt_cache_hit_tokens,
      prompt_cache_miss_tokens: usage.prompt_cache_miss_tokens,
      cost_usd: b.usage.cost_usd,
    };
    expect(b.usage.cost_usd).toBeGreaterThan(0);
    expect(b.usage).toEqual({ ...figures, by_agent: [{ agent: "parent", ...figures }], repairs: 0 });
    const second = bodies()[1]!;
    expect(second.messages.slice(1)).toEqual([
      { role: "user", content: "[#1] first question" },
      { role: "assistant", content: "first answer", reasoning_content: expect.any(String) },
      { role: "user", content: "[#2] second question" },
    ]);
    // The second request repeats the first request and its answer, so the prefix cache hits.
    expect(usage.prompt_cache_hit_tokens).toBeGreaterThan(0);
  });
});

describe("the loop's limits and the model's mistakes", () => {
  it("--max-steps ends the instruction with exit 1 and every tool call answered", async () => {
    const loop = { tool_calls: [call("read_file", { path: "." })] };
    sim = await startSimulator({ script: [loop, loop, loop] });
    const project = await tempProject();
    const result = await runHelInProcess({ args: ["-C", project, "--json", "--max-steps", "2", "list"], baseUrl: sim.url });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "max_steps", answer: null, usage: { requests: 2 } });
    expect(sim.requests).toHaveLength(2);
    expect(result.stderr).toMatch(/--max-steps/);
  });

  it("finish_reason length ends with exit_reason length", async () => {
    sim = await startSimulator({ script: [{ content: "partial", finish_reason: "length" }] });
    const project = await tempProject();
    const result = await runHelInProcess({ args: ["-C", project, "--json", "go"], baseUrl: sim.url });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "length" });
  });

  it("malformed tool-call JSON, an unknown tool and bad arguments come back as error results the model can correct", async () => {
    sim = await startSimulator({
      script: [
        {
          tool_calls: [
            { name: "read_file", arguments: '{"path": "a.txt"' },
            { name: "run_shell", arguments: "{}" },
            { name: "read_file", arguments: '{"offset": "x"}' },
          ],
        },
        { tool_calls: [call("read_file", { path: "a.txt" })] },
        { content: "done" },
      ],
    });
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "content\n");
    const result = await runHelInProcess({ args: ["-C", project, "read a.txt"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const results = bodies()[1]!
      .messages.filter((m) => m.role === "tool")
      .map((m) => m.content);
    expect(results).toHaveLength(3);
    expect(results[0]).toMatch(/^\[#2\] Error: .*JSON/);
    expect(results[1]).toMatch(/^\[#3\] Error: .*run_shell.*read_file/s);
    expect(results[2]).toMatch(/^\[#4\] Error: /);
    expect(bodies()[2]!.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining("content") });
  });

  it("--access read-only does not offer search_replace, and a call to it edits nothing", async () => {
    sim = await startSimulator({ script: [{ tool_calls: [call("search_replace", { path: "a.txt", old_text: "a", new_text: "b" })] }, { content: "could not" }] });
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "a\n");
    const result = await runHelInProcess({ args: ["-C", project, "--access", "read-only", "edit"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("a\n");
    expect(bodies()[0]!.tools!.map((t) => t.function.name)).toEqual(["read_file", "run_command", "grep", "find_files", "fold", "recall", "ask", "todo"]);
    expect(bodies()[1]!.messages.at(-1)!.content).toBe('[#2] Error: unknown tool "search_replace". Available tools: read_file, run_command, grep, find_files, fold, recall, ask, todo');
  });

  it("a path outside the project is refused as a tool error", async () => {
    sim = await startSimulator({ script: [{ tool_calls: [call("read_file", { path: "../../etc/passwd" })] }, { content: "no" }] });
    const project = await tempProject();
    await runHelInProcess({ args: ["-C", project, "read"], baseUrl: sim.url });
    expect(bodies()[1]!.messages.at(-1)!.content).toMatch(/^\[#2\] Error: .*inside the project/);
  });
});

describe("--record", () => {
  it("writes the exact request bodies, usage and record.json", async () => {
    sim = await startSimulator({ script: [{ tool_calls: [call("read_file", { path: "." })] }, { content: "listed" }] });
    const project = await tempProject();
    const out = await tempProject();
    const result = await runHelInProcess({ args: ["-C", project, "--record", out, "list"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const lines = (await readFile(join(out, "raw", "requests.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines.map((l) => l.agent)).toEqual(["parent", "parent"]);
    expect(lines.map((l) => l.body)).toEqual(bodies());
    expect(lines[1].usage).toEqual(sim.requests[1]!.usage);
    expect(lines[1].status).toBe(200);
    const record = JSON.parse(await readFile(join(out, "record.json"), "utf8"));
    expect(record).toMatchObject({ answer: "listed", exit_reason: "completed", requests: 2, tool_calls: [{ agent: "parent", name: "read_file", arguments: '{"path":"."}' }] });
    expect(record.usage.total.prompt_tokens).toBe(sim.requests[0]!.usage!.prompt_tokens + sim.requests[1]!.usage!.prompt_tokens);
    expect(await readdir(join(out, "raw"))).toEqual(["delegations.jsonl", "requests.jsonl"]);
  });
});

describe("HTTP", () => {
  // The bundle loads zlib only when a response is compressed (rolldown.config.mjs): this is that path.
  it("reads an answer sent gzip-compressed", async () => {
    sim = await startSimulator({ script: [{ content: "Compressed, and read." }] });
    const upstream = new URL(sim.url);
    const gzipping = createServer((req, res) => {
      const up = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        const { "content-length": _, ...headers } = answer.headers;
        res.writeHead(answer.statusCode ?? 502, { ...headers, "content-encoding": "gzip" });
        answer.pipe(createGzip()).pipe(res);
      });
      req.pipe(up);
    });
    await new Promise<void>((done) => gzipping.listen(0, "127.0.0.1", done));
    try {
      const project = await tempProject();
      const { port } = gzipping.address() as AddressInfo;
      const result = await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: `http://127.0.0.1:${port}` });
      expect(result.stderr).not.toMatch(/hel: /);
      expect(result.stdout).toBe("Compressed, and read.\n");
      expect(result.code).toBe(0);
    } finally {
      gzipping.closeAllConnections();
      await new Promise((done) => gzipping.close(done));
    }
  });

  it("follows a redirect with the request intact, and never takes the key to another origin", async () => {
    sim = await startSimulator({ script: [{ content: "Redirected, and answered." }] });
    const upstream = new URL(sim.url);
    // Another origin (another port) that records what reaches it.
    const elsewhere: { authorization: string | undefined; body: string }[] = [];
    const other = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        elsewhere.push({ authorization: req.headers.authorization, body });
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "no key here" } }));
      });
    });
    // /same/... redirects within this origin to /final/..., which forwards to the simulator;
    // /other/... redirects to the other origin.
    const gateway = createServer((req, res) => {
      const [, route, rest] = /^\/(same|final|other)(\/.*)$/.exec(req.url!)!;
      if (route === "final") {
        const up = request({ host: upstream.hostname, port: upstream.port, path: rest, method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        req.pipe(up);
        return;
      }
      res.writeHead(307, { location: route === "same" ? `/final${rest}` : `http://127.0.0.1:${(other.address() as AddressInfo).port}${rest}` });
      res.end();
    });
    await Promise.all([other, gateway].map((server) => new Promise<void>((done) => server.listen(0, "127.0.0.1", done))));
    try {
      const project = await tempProject();
      const base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
      const same = await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: `${base}/same` });
      expect(same.stdout).toBe("Redirected, and answered.\n");
      expect(same.code).toBe(0);
      expect(sim.requests).toHaveLength(1);
      expect(sim.requests[0]!.headers.authorization).toBe("Bearer sk-test");
      expect(bodies()[0]!.messages.at(-1)).toEqual({ role: "user", content: "[#1] hi" });

      const away = await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: `${base}/other` });
      expect(elsewhere).toHaveLength(1);
      expect(elsewhere[0]!.authorization).toBeUndefined();
      expect(JSON.parse(elsewhere[0]!.body)).toMatchObject({ messages: [{ role: "system" }, { role: "user", content: "[#1] hi" }] });
      expect(away.stderr).toMatch(/hel: DeepSeek rejected the API key \(401\)/);
      expect(away.code).toBe(1);
    } finally {
      for (const server of [other, gateway]) {
        server.closeAllConnections();
        await new Promise((done) => server.close(done));
      }
    }
  });
});

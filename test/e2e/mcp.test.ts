// MCP servers, end to end: the built hel with the published reference servers (server-everything and
// server-filesystem) started over stdio, an HTTP server built with the SDK in this test, and a server
// of the SDK that fails the ways real ones do (test/helpers/mcp-faults-server.mjs), against the
// simulator; what each request carried is asserted exactly.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { DEFAULT_TOOLS } from "../../src/agent/toolbox.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";
import { runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

const require = createRequire(import.meta.url);
const bin = (pkg: string) => join(require.resolve(`${pkg}/package.json`), "..", "dist", "index.js");
const EVERYTHING = bin("@modelcontextprotocol/server-everything");
const FILESYSTEM = bin("@modelcontextprotocol/server-filesystem");
const FAULTS = join(import.meta.dirname, "..", "helpers", "mcp-faults-server.mjs");
const KEY = "sk-test-mcp-0123456789abcdef";

let sim: Simulator | undefined;
afterEach(async () => sim?.close());

const bodies = (s: Simulator) => s.requests.map((r) => r.body as ChatRequest);
const names = (body: ChatRequest) => (body.tools ?? []).map((t) => t.function.name);
const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: JSON.stringify(args) });
const toolMessages = (body: ChatRequest) => body.messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool").map((m) => String(m.content).replace(/^\[#\d+\] /, ""));

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, JSON.stringify(value));
}

describe("the reference servers over stdio", () => {
  it("offers their tools after hel's own, sorted, runs a call, keeps the API key out of a server's environment, and sends the same prefix next run", async () => {
    const project = await tempProject();
    await writeFile(join(project, "notes.txt"), "from the filesystem server\n");
    await writeJson(join(project, ".mcp.json"), {
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
        // Its own env names the key: only it gets it.
        keyed: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { DEEPSEEK_API_KEY: "${DEEPSEEK_API_KEY}" } },
      },
    });
    const given = join(project, "given.json");
    await writeJson(given, { mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM, project] } } });
    const args = ["-C", project, "--trust", "--mcp-config", given, "--delegate", "task-only"];

    sim = await startSimulator({
      script: [
        { tool_calls: [call("mcp__everything__echo", { message: "hi" }), call("mcp__everything__get-env"), call("mcp__keyed__get-env"), call("mcp__fs__read_text_file", { path: join(project, "notes.txt") })] },
        { content: "done" },
      ],
    });
    const first = await runHel({ args: [...args, "use the servers"], baseUrl: sim.url, env: { DEEPSEEK_API_KEY: KEY } });
    expect(first.stderr.split("\n").filter((l) => l.startsWith("hel: "))).toEqual([]);
    expect(first.code).toBe(0);
    const [opening, answer] = bodies(sim);
    const offered = names(opening!);
    const own = [...DEFAULT_TOOLS, "delegate_task", "review_changes"];
    expect(offered.slice(0, own.length)).toEqual(own);
    const served = offered.slice(own.length);
    expect(served.every((n) => n.startsWith("mcp__"))).toBe(true);
    // By server, then tool name: everything, fs, keyed.
    const key = (n: string) => n.replace(/^mcp__([^_]+)__/, "$1\0");
    expect([...served].sort((a, b) => (key(a) < key(b) ? -1 : 1))).toEqual(served);
    expect(served.filter((n) => n.startsWith("mcp__everything__"))).toContain("mcp__everything__echo");
    expect(served.some((n) => n.startsWith("mcp__fs__"))).toBe(true);
    // The definition is the server's schema as it gave it, without its $schema.
    expect(opening!.tools!.find((t) => t.function.name === "mcp__everything__echo")).toEqual({
      type: "function",
      function: {
        name: "mcp__everything__echo",
        description: "Echoes back the input string",
        parameters: { type: "object", properties: { message: { type: "string", description: "Message to echo" } }, required: ["message"] },
      },
    });
    // The result as the model gets it: stamped, as every result is.
    expect(answer!.messages.find((m) => m.role === "tool")!.content).toBe("[#2] Echo: hi");
    const results = toolMessages(answer!);
    expect(results[1]).not.toContain("DEEPSEEK_API_KEY");
    expect(results[1]).toContain("PATH");
    // The keyed server has the key, and the model sees it masked.
    expect(results[2]).toContain("DEEPSEEK_API_KEY");
    expect(results[2]).not.toContain(KEY);
    expect(results[3]).toBe("from the filesystem server\n");
    expect(answer!.messages.find((m) => m.role === "assistant")).toMatchObject({ tool_calls: [{ function: { name: "mcp__everything__echo", arguments: '{"message":"hi"}' } }, {}, {}, {}] });
    expect(await readFile(join(project, ".hel", "logs", "mcp-everything.log"), "utf8")).toContain("Starting");

    // A new session on the same servers: the same tools, byte for byte; a child is offered the same list.
    await sim.close();
    sim = await startSimulator({
      script: [{ tool_calls: [call("delegate_task", { task: "echo hi" })] }, { tool_calls: [call("mcp__everything__echo", { message: "from the child" })] }, { content: "child done" }, { content: "done" }],
    });
    const second = await runHel({ args: [...args, "use the servers"], baseUrl: sim.url, env: { DEEPSEEK_API_KEY: KEY } });
    expect(second.code).toBe(0);
    const again = bodies(sim);
    expect(JSON.stringify(again[0]!.tools)).toBe(JSON.stringify(opening!.tools));
    expect(JSON.stringify(again[1]!.tools)).toBe(JSON.stringify(opening!.tools));
    expect(toolMessages(again[2]!)).toEqual(["Echo: from the child"]);
  });
});

describe("an HTTP server built with the SDK", () => {
  let http: Server;
  const seen: string[] = [];
  afterAll(() => new Promise<void>((done) => http?.close(() => done())));

  it("is reached over streamable HTTP with its headers, and its tool called", async () => {
    http = createServer(async (req, res) => {
      seen.push(String(req.headers["x-token"]));
      const server = new McpServer({ name: "web", version: "1.0.0" });
      server.registerTool("add", { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
    const project = await tempProject();
    const given = join(project, "web.json");
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    await writeJson(given, { mcpServers: { web: { type: "http", url, headers: { "x-token": "t-${HEL_TEST_TOKEN}" } } } });
    sim = await startSimulator({ script: [{ tool_calls: [call("mcp__web__add", { a: 2, b: 3 })] }, { content: "5" }] });
    const run = await runHel({ args: ["-C", project, "--mcp-config", given, "add"], baseUrl: sim.url, env: { HEL_TEST_TOKEN: "abc" } });
    expect(run.code).toBe(0);
    const [opening, answer] = bodies(sim);
    expect(names(opening!).at(-1)).toBe("mcp__web__add");
    expect(toolMessages(answer!)).toEqual(["5"]);
    expect(new Set(seen)).toEqual(new Set(["t-abc"]));
  });
});

describe("servers that fail", () => {
  it("a crash, a call never answered, a long answer, an image, a clash and a bad name: each a clear result or one warning line", async () => {
    const project = await tempProject();
    const configHome = await tempProject();
    await writeJson(join(configHome, "hel", "config.json"), {
      "mcp-timeout": 1,
      "mcp-servers": { faults: { command: process.execPath, args: [FAULTS] }, faults__clash: { command: process.execPath, args: [FAULTS] }, broken: { url: 3 } },
    });
    sim = await startSimulator({
      script: [
        { tool_calls: [call("mcp__faults__crash")] },
        { tool_calls: [call("mcp__faults__echo", { text: "back" }), call("mcp__faults__hang"), call("mcp__faults__big"), call("mcp__faults__picture")] },
        { content: "done" },
      ],
    });
    const run = await runHel({ args: ["-C", project, "try them"], baseUrl: sim.url, env: { XDG_CONFIG_HOME: configHome } });
    expect(run.code).toBe(0);
    const warnings = run.stderr.split("\n").filter((l) => l.startsWith("hel: "));
    expect(warnings).toEqual([
      `hel: left out the MCP server "broken" of ${join(configHome, "hel", "config.json")}: command must name a program — fix its entry`,
      'hel: left out the tool "bad name" of the MCP server "faults": DeepSeek takes only names of 1 to 64 letters, digits, _ and -, and "mcp__faults__bad name" is not one — rename the server in its config if the server\'s name is the cause',
      'hel: left out the tool "bad name" of the MCP server "faults__clash": DeepSeek takes only names of 1 to 64 letters, digits, _ and -, and "mcp__faults__clash__bad name" is not one — rename the server in its config if the server\'s name is the cause',
      'hel: left out the MCP tools "clash__tool" of "faults" and "tool" of "faults__clash": both would be offered as mcp__faults__clash__tool — rename one of the servers in its config',
    ]);
    const offered = names(bodies(sim)[0]!);
    expect(offered).not.toContain("mcp__faults__clash__tool");
    expect(offered).toContain("mcp__faults__tool");
    const [crashed, echoed, hung, big, picture] = toolMessages(bodies(sim)[2]!);
    expect(crashed).toMatch(/^Error: the MCP server faults stopped during the call of crash.*; it is started again at the next call of its tools$/);
    // Started again for the next call.
    expect(echoed).toBe("echo: back");
    expect(hung).toBe("Error: the MCP server faults did not answer hang within 1 s (mcp-timeout), so the call was given up. Try it again, or go on without it");
    expect(big).toMatch(/\[result too long for the conversation: .*The whole result is in \.hel\/sessions\/.*\/spill\//);
    expect(big!.length).toBeLessThan(10_000);
    // An image is described; the text loses its colour codes.
    expect(picture).toBe("[image: image/png, 2.9 KB]\nred");
  });

  it("an answer of 100 MB fails that call saying why, without holding it all, and the same server answers the next", async () => {
    const project = await tempProject();
    const given = join(project, "faults.json");
    await writeJson(given, { mcpServers: { faults: { command: process.execPath, args: [FAULTS] } } });
    sim = await startSimulator({
      script: [{ tool_calls: [call("mcp__faults__pid")] }, { tool_calls: [call("mcp__faults__huge")] }, { tool_calls: [call("mcp__faults__pid"), call("mcp__faults__echo", { text: "still here" })] }, { content: "done" }],
    });
    const run = await runHel({ args: ["-C", project, "--mcp-config", given, "go"], baseUrl: sim.url });
    expect(run.code).toBe(0);
    const [before, huge, after, echoed] = toolMessages(bodies(sim)[3]!);
    expect(huge).toBe("Error: huge (MCP server faults): its answer was 100.0 MB, more than the 10 MB hel takes from an MCP server, so it was dropped (the server still runs) — ask for less at a time");
    // Not started again: the same process answers.
    expect(before).toMatch(/^\d+$/);
    expect(after).toBe(before);
    expect(echoed).toBe("echo: still here");
  });

  it("a server that never answers initialize is left out with one line, and a one-shot run still exits after its answer", async () => {
    const project = await tempProject();
    const given = join(project, "silent.json");
    await writeJson(given, { mcpServers: { silent: { command: process.execPath, args: [FAULTS, "silent"] } } });
    sim = await startSimulator({ script: [{ content: "answered" }] });
    const run = await runHel({ args: ["-C", project, "--mcp-config", given, "go"], baseUrl: sim.url });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("answered\n");
    expect(run.stderr.split("\n").filter((l) => l.startsWith("hel: "))).toEqual([
      `hel: left out the MCP server "silent": it did not start within 10 s — see ${join(project, ".hel", "logs", "mcp-silent.log")} for what it said`,
    ]);
    expect(names(bodies(sim)[0]!).filter((n) => n.startsWith("mcp__"))).toEqual([]);
  });

  it("a tool list that changes is offered from the next instruction, never inside a turn", async () => {
    const project = await tempProject();
    const given = join(project, "faults.json");
    await writeJson(given, { mcpServers: { faults: { command: process.execPath, args: [FAULTS] } } });
    sim = await startSimulator({ script: [{ tool_calls: [call("mcp__faults__grow")] }, { content: "grew" }, { content: "second" }] });
    const run = await runHel({ args: ["-C", project, "--mcp-config", given], baseUrl: sim.url, input: "grow\nagain\n" });
    expect(run.code).toBe(0);
    const [first, inTurn, next] = bodies(sim).map(names);
    expect(first).not.toContain("mcp__faults__grown");
    expect(inTurn).toEqual(first);
    expect(next).toContain("mcp__faults__grown");
  });
});

describe("configuration", () => {
  it("a malformed .mcp.json is one warning and hel's own tools go out unchanged; an untrusted one starts nothing", async () => {
    sim = await startSimulator({ script: [{ content: "plain" }, { content: "broken" }, { content: "untrusted" }] });
    const plain = await tempProject();
    expect((await runHel({ args: ["-C", plain, "hi"], baseUrl: sim.url })).code).toBe(0);

    const broken = await tempProject();
    await writeFile(join(broken, ".mcp.json"), "{ not json");
    const run = await runHel({ args: ["-C", broken, "--trust", "hi"], baseUrl: sim.url });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^hel: left out the MCP servers of .*\.mcp\.json: it is not valid JSON \(.*\) — fix it or remove it\n/);

    const untrusted = await tempProject();
    await writeJson(join(untrusted, ".mcp.json"), { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } });
    const ignored = await runHel({ args: ["-C", untrusted, "hi"], baseUrl: sim.url });
    expect(ignored.code).toBe(0);
    expect(ignored.stderr).toMatch(/^hel: ignored this project's mcp-servers \(.*\.mcp\.json, .*\): a project's own files may not widen what hel does until you trust it/);
    expect(existsSync(join(untrusted, ".hel", "logs"))).toBe(false);

    const [a, b, c] = bodies(sim).map((body) => JSON.stringify(body.tools));
    expect(b).toBe(a);
    expect(c).toBe(a);
  });

  it("a malformed --mcp-config is a usage error", async () => {
    const project = await tempProject();
    const given = join(project, "bad.json");
    await writeJson(given, { mcpServers: { web: { type: "http", url: "not a url" } } });
    const run = await runHel({ args: ["-C", project, "--mcp-config", given, "hi"] });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`hel: the MCP config ${given} has a bad server "web": url must be a URL such as https://example.com/mcp — fix it, or leave out --mcp-config\n`);
  });

  it("hel mcp ls lists each server's tools and their size in tokens", async () => {
    const project = await tempProject();
    const given = join(project, "faults.json");
    await writeJson(given, { mcpServers: { faults: { command: process.execPath, args: [FAULTS] } } });
    const run = await runHel({ args: ["-C", project, "mcp", "ls", "--mcp-config", given] });
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^faults \(.*mcp-faults-server\.mjs\): 10 tools, \d+ tokens in every request$/);
    expect(lines.slice(1).map((l) => l.trim().split(/\s+/)[0])).toEqual(["big", "clash__tool", "crash", "echo", "grow", "hang", "huge", "picture", "pid", "tool"].map((t) => `mcp__faults__${t}`));
    expect(lines[4]).toMatch(/^ {2}mcp__faults__echo {2}\d+ tokens$/);
  });
});

// `hel acp` driven as an editor drives it: a client on the protocol's own SDK spawns the built hel as a
// real process, against the simulator, and reads what it is sent. One simulator for the file; each
// test scripts the requests it makes.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION, type ClientCapabilities, type ClientContext, type RequestPermissionRequest, type SessionUpdate } from "@agentclientprotocol/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { HEL, helEnv, ROOT, runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";
import { sessionIdOf } from "../helpers/simulators.js";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({});
});
afterAll(() => sim.close());

interface Editor {
  agent: ClientContext;
  /** Every session/update, in arrival order. */
  updates: { sessionId: string; update: SessionUpdate }[];
  stderr(): string;
  /** Closes stdin, as an editor does, and resolves with hel's exit code and every line it wrote on stdout. */
  close(): Promise<{ code: number | null; stdout: string[] }>;
}

/** How the editor answers hel's session/request_permission: the option it picks, and what it was asked. */
interface Permissions {
  pick: string;
  asked: RequestPermissionRequest[];
}

async function startEditor(env: Record<string, string | undefined> = {}, flags: string[] = [], permissions?: Permissions, clientCapabilities: ClientCapabilities = {}): Promise<Editor> {
  const child = spawn(process.execPath, [HEL, ...flags, "acp"], { cwd: ROOT, env: helEnv(sim.url, env), stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const fromHel = new PassThrough();
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    fromHel.write(d);
  });
  child.stdout.on("end", () => fromHel.end());
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  const updates: Editor["updates"] = [];
  const connection = client({ name: "test-editor" })
    .onNotification(methods.client.session.update, ({ params }) => void updates.push({ sessionId: params.sessionId, update: params.update }))
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      permissions?.asked.push(params);
      return { outcome: permissions ? { outcome: "selected", optionId: permissions.pick } : { outcome: "cancelled" } };
    })
    .connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(fromHel) as ReadableStream<Uint8Array>));
  const agent = connection.agent;
  const init = await agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities });
  expect(init.agentCapabilities?.loadSession).toBe(true);
  return {
    agent,
    updates,
    stderr: () => stderr,
    async close() {
      connection.close();
      child.stdin.end();
      const code = await exited;
      return { code, stdout: stdout.split("\n").filter(Boolean) };
    },
  };
}

/** The updates of a session with consecutive chunks of one kind joined, as an editor shows them. */
function shown(updates: Editor["updates"], sessionId: string): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  for (const { update } of updates.filter((u) => u.sessionId === sessionId)) {
    const last = out.at(-1);
    if (
      last &&
      (update.sessionUpdate === "agent_message_chunk" || update.sessionUpdate === "agent_thought_chunk") &&
      last.sessionUpdate === update.sessionUpdate &&
      last.content.type === "text" &&
      update.content.type === "text"
    ) {
      out[out.length - 1] = { ...last, content: { type: "text", text: last.content.text + update.content.text } };
    } else out.push(update);
  }
  return out;
}

/** Only JSON-RPC messages went to stdout. */
function expectOnlyProtocol(lines: string[]) {
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
}

const call = (id: string, name: string, args: object) => ({ id, name, arguments: JSON.stringify(args) });
/** The updates of a search_replace call at line 1 of `path`: asked for, and ended with its diff. */
const editUpdates = (toolCallId: string, path: string, args: { path: string; old_text: string; new_text: string }, oldText: string, newText: string) => ({
  opened: { sessionUpdate: "tool_call", toolCallId, title: `search_replace ${args.path}`, kind: "edit", status: "pending", locations: [{ path }], rawInput: args },
  ended: { sessionUpdate: "tool_call_update", toolCallId, status: "completed", content: [{ type: "diff", path, oldText, newText }], locations: [{ path, line: 1 }] },
});

describe("hel acp", () => {
  it("runs a prompt that edits a file: the tool call, its diff and completion are streamed, and the requests are plain hel's", async () => {
    const project = await tempProject();
    const file = join(project, "app.txt");
    const script = () => [
      { reasoning: "Change the port.", tool_calls: [call("call_edit", "search_replace", { path: "app.txt", old_text: "port = 80", new_text: "port = 8143" })] },
      { reasoning: "Done.", content: "The port is 8143 now." },
    ];
    // The same instruction through plain hel first: its requests are what the editor's must be.
    await writeFile(file, "host = a\nport = 80\n");
    sim.push(...script());
    const plain = await runHel({ args: ["-C", project, "change the port"], baseUrl: sim.url });
    expect(plain.code).toBe(0);
    const plainBodies = sim.requests.splice(0).map((r) => r.body);
    await writeFile(file, "host = a\nport = 80\n");

    const editor = await startEditor();
    const { sessionId } = await editor.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    sim.push(...script());
    const answer = await editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "change the port" }] });
    expect(answer).toEqual({ stopReason: "end_turn" });
    expect(await readFile(file, "utf8")).toBe("host = a\nport = 8143\n");

    const edit = editUpdates("call_edit", file, { path: "app.txt", old_text: "port = 80", new_text: "port = 8143" }, "host = a\nport = 80", "host = a\nport = 8143");
    expect(shown(editor.updates, sessionId)).toEqual([
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Change the port." } },
      edit.opened,
      { sessionUpdate: "tool_call_update", toolCallId: "call_edit", status: "in_progress" },
      edit.ended,
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Done." } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "The port is 8143 now." } },
    ]);
    // Byte for byte the requests of plain hel: ACP changes what is shown, not what the model gets.
    const bodies = sim.requests.splice(0).map((r) => r.body);
    expect(JSON.stringify(bodies)).toBe(JSON.stringify(plainBodies));
    expect((bodies[1] as ChatRequest).messages.slice(1)).toEqual([
      { role: "user", content: "[#1] change the port" },
      {
        role: "assistant",
        content: "",
        reasoning_content: "Change the port.",
        tool_calls: [{ id: "call_edit", type: "function", function: { name: "search_replace", arguments: JSON.stringify({ path: "app.txt", old_text: "port = 80", new_text: "port = 8143" }) } }],
      },
      { role: "tool", tool_call_id: "call_edit", content: "[#2] Edited app.txt: replaced line 2; the new text is at line 2." },
    ]);

    // A turn the API fails is the prompt's error, in hel's one line.
    sim.push({ fault: { kind: "status", status: 401 } });
    await expect(editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "again" }] })).rejects.toThrow(/^hel: .*401/);
    sim.requests.splice(0);

    // An ordinary hel session: listed, and shown with its turn.
    const ls = await runHel({ args: ["-C", project, "sessions", "ls", "--json"] });
    expect(ls.stdout).toContain(sessionId);
    const ended = await editor.close();
    expect(ended.code).toBe(0);
    expectOnlyProtocol(ended.stdout);
    // The terminal's views are off: no tool lines, no figures, no resume hint.
    expect(editor.stderr()).toBe("");
  });

  it("a cancel mid-turn answers cancelled and the turn is saved; the held session cannot be loaded by a second hel acp", async () => {
    const project = await tempProject();
    await writeFile(join(project, "notes.txt"), "code word: PLUM\n");
    const editor = await startEditor();
    const { sessionId } = await editor.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    sim.push({ tool_calls: [call("call_read", "read_file", { path: "notes.txt" })] }, { fault: { kind: "stall", ms: 60_000 } });
    const prompting = editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read the notes" }] });
    await waitFor(() => sim.requests.length === 2, "the second request of the turn");
    await editor.agent.notify(methods.agent.session.cancel, { sessionId });
    expect(await prompting).toEqual({ stopReason: "cancelled" });
    sim.requests.splice(0);
    expect(shown(editor.updates, sessionId).map((u) => [u.sessionUpdate, "status" in u ? u.status : undefined])).toEqual([
      ["agent_thought_chunk", undefined],
      ["tool_call", "pending"],
      ["tool_call_update", "in_progress"],
      ["tool_call_update", "completed"],
    ]);

    const snapshot = JSON.parse(await readFile(join(project, ".hel", "sessions", sessionId, "snapshot.json"), "utf8"));
    expect(snapshot.last_turn).toEqual({ exit_reason: "aborted" });
    expect(snapshot.messages.slice(1).map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool"]);
    const show = await runHel({ args: ["-C", project, "sessions", "show", sessionId] });
    expect(show.stdout).toContain("read the notes");

    const second = await startEditor();
    await expect(second.agent.request(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] })).rejects.toThrow(new RegExp(`hel: session ${sessionId} is in use`));
    expect((await second.close()).code).toBe(0);
    expect((await editor.close()).code).toBe(0);
  });

  it("session/load of a session this connection already holds (made or loaded here) says so, and the session goes on", async () => {
    const project = await tempProject();
    sim.push({ content: "first answer" });
    const made = await runHel({ args: ["-C", project, "hello"], baseUrl: sim.url });
    const plain = sessionIdOf(made.stderr)!;
    const editor = await startEditor();
    const { sessionId } = await editor.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    sim.push({ content: "second answer" });
    expect(await editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] })).toEqual({ stopReason: "end_turn" });
    expect(await editor.agent.request(methods.agent.session.load, { sessionId: plain, cwd: project, mcpServers: [] })).toEqual({ modes: expect.objectContaining({ currentModeId: "default" }) });
    for (const id of [sessionId, plain]) {
      await expect(editor.agent.request(methods.agent.session.load, { sessionId: id, cwd: project, mcpServers: [] })).rejects.toThrow(
        `hel: session ${id} is already open in this editor connection — send its prompts to it as it is, or start another with session/new`,
      );
    }
    sim.requests.splice(0);
    sim.push({ content: "still here" });
    expect(await editor.agent.request(methods.agent.session.prompt, { sessionId: plain, prompt: [{ type: "text", text: "again" }] })).toEqual({ stopReason: "end_turn" });
    expect(sim.requests).toHaveLength(1);
    expect((await editor.close()).code).toBe(0);
  });

  it("loads a session plain hel made, replaying its conversation, and goes on from it", async () => {
    const project = await tempProject();
    await writeFile(join(project, "notes.txt"), "code word: PLUM\n");
    sim.push(
      { reasoning: "Read the notes.", tool_calls: [call("call_read", "read_file", { path: "notes.txt" })] },
      { reasoning: "Change it.", tool_calls: [call("call_edit", "search_replace", { path: "notes.txt", old_text: "PLUM", new_text: "PEAR" })] },
      { reasoning: "Found it.", content: "The code word was PLUM; it is PEAR now." },
    );
    const made = await runHel({ args: ["-C", project, "find the code word and change it"], baseUrl: sim.url });
    expect(made.code).toBe(0);
    const sessionId = sessionIdOf(made.stderr)!;
    sim.requests.splice(0);
    const snapshot = JSON.parse(await readFile(join(project, ".hel", "sessions", sessionId, "snapshot.json"), "utf8"));
    const result = snapshot.messages[3].content.replace(/^\[#2\] /, "");

    const editor = await startEditor();
    expect(await editor.agent.request(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] })).toEqual({ modes: expect.objectContaining({ currentModeId: "default" }) });
    const notes = join(project, "notes.txt");
    const edit = editUpdates("call_edit", notes, { path: "notes.txt", old_text: "PLUM", new_text: "PEAR" }, "code word: PLUM", "code word: PEAR");
    expect(shown(editor.updates, sessionId)).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "find the code word and change it" } },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Read the notes." } },
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_read",
        title: "read_file notes.txt",
        kind: "read",
        status: "pending",
        locations: [{ path: notes }],
        rawInput: { path: "notes.txt" },
      },
      { sessionUpdate: "tool_call_update", toolCallId: "call_read", status: "completed", content: [{ type: "content", content: { type: "text", text: result } }] },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Change it." } },
      edit.opened,
      edit.ended,
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Found it." } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "The code word was PLUM; it is PEAR now." } },
    ]);
    expect(result).toContain("code word: PLUM");

    sim.push({ content: "You asked for the code word." });
    const answer = await editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "what did I ask?" }] });
    expect(answer).toEqual({ stopReason: "end_turn" });
    const body = sim.requests.splice(0)[0]!.body as ChatRequest;
    expect(body.messages.slice(1)).toEqual([...snapshot.messages.slice(1), { role: "user", content: "[#4] what did I ask?" }]);
    expect((await editor.close()).code).toBe(0);
  });

  it("with --approval on-request, an escalated command is asked about through session/request_permission, and given what the sandbox denied it only once allowed", async () => {
    const project = await tempProject();
    // Outside the project and outside /tmp, which the sandbox replaces with a private one.
    const place = await mkdtemp("/var/tmp/hel-acp-");
    const outside = join(place, "written-outside");
    try {
      const plain = (id: string) => call(id, "run_command", { command: `touch ${outside}` });
      const escalated = (id: string) => call(id, "run_command", { command: `touch ${outside}`, escalate: true, justification: "the test writes outside the project" });
      for (const [pick, ran] of [
        ["no", false],
        ["once", true],
      ] as const) {
        const permissions: Permissions = { pick, asked: [] };
        const editor = await startEditor({}, ["--approval", "on-request"], permissions);
        const { sessionId } = await editor.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
        sim.push({ tool_calls: [plain(`plain_${pick}`)] }, { tool_calls: [escalated(`call_${pick}`)] }, { content: "ok" });
        expect(await editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write it" }] })).toEqual({ stopReason: "end_turn" });
        expect(permissions.asked).toEqual([
          {
            sessionId,
            toolCall: {
              toolCallId: `call_${pick}`,
              title: `give writes to ${place} to: touch ${outside}`,
              kind: "execute",
              status: "pending",
              content: [{ type: "content", content: { type: "text", text: "the test writes outside the project" } }],
              rawInput: { command: `touch ${outside}`, justification: "the test writes outside the project", grant: { network: false, writable: [place] } },
            },
            options: [
              { optionId: "once", name: "Give it this once", kind: "allow_once" },
              { optionId: "always", name: "Always give this command as much in this session", kind: "allow_always" },
              { optionId: "no", name: "No", kind: "reject_once" },
            ],
          },
        ]);
        expect(
          await readFile(outside).then(
            () => true,
            () => false,
          ),
        ).toBe(ran);
        // The model is told what happened.
        const result = (sim.requests.at(-1)!.body as ChatRequest).messages.at(-1)!;
        expect(String(result.content)).toMatch(ran ? /It ran in the sandbox, given writes to/ : /refused/i);
        sim.requests.splice(0);
        await editor.close();
      }
    } finally {
      await rm(place, { recursive: true, force: true });
    }
  });

  it("starts the MCP servers the editor names with session/new, and offers their tools", async () => {
    const project = await tempProject();
    const everything = join(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json"), "..", "dist", "index.js");
    const editor = await startEditor();
    const { sessionId } = await editor.agent.request(methods.agent.session.new, {
      cwd: project,
      mcpServers: [
        { name: "everything", command: process.execPath, args: [everything, "stdio"], env: [] },
        { type: "sse", name: "old", url: "http://127.0.0.1:1/sse", headers: [] },
      ],
    });
    sim.push({ tool_calls: [call("call_echo", "mcp__everything__echo", { message: "from the editor" })] }, { content: "echoed" });
    expect(await editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "echo" }] })).toEqual({ stopReason: "end_turn" });
    const [first, second] = sim.requests.splice(0).map((r) => r.body as ChatRequest) as [ChatRequest, ChatRequest];
    expect(first.tools!.map((t) => t.function.name)).toContain("mcp__everything__echo");
    expect(second.messages.at(-1)).toMatchObject({ role: "tool", content: "[#2] Echo: from the editor" });
    expect(editor.stderr()).toContain("hel: left out the editor's MCP servers old (sse): hel speaks stdio and streamable HTTP");
    await editor.close();
  });

  it("shows the editor a problem with the project's own files, and offers its command files as the session's commands, a prompt naming one sending its text", async () => {
    const project = await tempProject();
    await mkdir(join(project, ".hel", "agents"), { recursive: true });
    await writeFile(join(project, ".hel", "agents", "bad.md"), "---\ndescription: Reviews\ncolour: red\n---\n");
    await mkdir(join(project, ".hel", "commands"));
    await writeFile(join(project, ".hel", "commands", "fix.md"), "---\ndescription: fix a thing\n---\nFix $ARGUMENTS carefully.\n");
    const problem = `the agent file ${join(project, ".hel", "agents", "bad.md")} is skipped: the key colour is unknown (the keys are name, description, mode, tools, model, max-steps, access, isolation, memory) — fix it or remove it`;
    const commands = { sessionUpdate: "available_commands_update", availableCommands: [{ name: "fix", description: "fix a thing", input: { hint: "args" } }] };
    const editor = await startEditor();
    const { sessionId } = await editor.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    await waitFor(() => editor.updates.length === 2, "the problem and the commands");
    expect(shown(editor.updates, sessionId)).toEqual([{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `hel: ${problem}\n` } }, commands]);
    // The terminal's warning as it was: stderr still has it.
    expect(editor.stderr()).toContain(`hel: ${problem}`);
    sim.push({ content: "fixed" });
    expect(await editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/fix the tests" }] })).toEqual({ stopReason: "end_turn" });
    expect((sim.requests.splice(0)[0]!.body as ChatRequest).messages.at(-1)).toMatchObject({ role: "user", content: "[#1] Fix the tests carefully." });
    await editor.close();
    // An editor that shows notices gets the problem as one.
    const noticing = await startEditor({}, [], undefined, { session: { notices: {} } });
    const second = await noticing.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    await waitFor(() => noticing.updates.length === 2, "the notice and the commands");
    expect(shown(noticing.updates, second.sessionId)).toEqual([{ sessionUpdate: "notice", severity: "warning", title: `hel: ${problem}` }, commands]);
    await noticing.close();
  });

  it("without an API key, a new session is refused with the error the editor shows", async () => {
    const editor = await startEditor({ DEEPSEEK_API_KEY: undefined });
    const project = await tempProject();
    await expect(editor.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] })).rejects.toThrow(/DEEPSEEK_API_KEY is not set/);
    const ended = await editor.close();
    expect(ended.code).toBe(0);
    expectOnlyProtocol(ended.stdout);
  });

  it("a local openai-compatible server needs no API key: the session opens, and its request carries no Authorization header", async () => {
    const local = await startSimulator({ mode: "openai-compatible" });
    try {
      const editor = await startEditor({ DEEPSEEK_API_KEY: undefined }, ["--provider", "openai-compatible", "--base-url", local.url]);
      const project = await tempProject();
      const { sessionId } = await editor.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
      const done = await editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
      expect(done.stopReason).toBe("end_turn");
      expect(local.requests).toHaveLength(1);
      expect(local.requests[0]!.headers.authorization).toBeUndefined();
      expect(local.requests[0]!.body).not.toHaveProperty("thinking");
      await editor.close();
    } finally {
      await local.close();
    }
  });

  it("offers plan mode as a session mode: in it the todo list is the plan update, the edit is refused with the same tools and system prompt, and the default mode goes on with the plan in view; a load sends the list again", async () => {
    const project = await tempProject();
    const file = join(project, "a.txt");
    await writeFile(file, "one\n");
    const editor = await startEditor();
    const made = await editor.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    expect(made.modes).toEqual({
      currentModeId: "default",
      availableModes: [
        { id: "default", name: "Default", description: "Read, edit and run commands as the session's access allows" },
        { id: "plan", name: "Plan", description: "Look and change nothing (commands run read-only), then end with a plan" },
      ],
    });
    const { sessionId } = made;
    await expect(editor.agent.request(methods.agent.session.setMode, { sessionId, modeId: "yolo" })).rejects.toThrow(/hel has no mode "yolo"/);
    expect(await editor.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" })).toEqual({});
    const edit = { path: "a.txt", old_text: "one", new_text: "two" };
    const items = [{ text: "change one", status: "in_progress" }];
    sim.requests.splice(0);
    sim.push({ tool_calls: [call("call_todo", "todo", { items }), call("call_plan_edit", "search_replace", edit)] }, { content: "1. change one" });
    await editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "look" }] });
    expect(await readFile(file, "utf8")).toBe("one\n");
    const plan = { sessionUpdate: "plan", entries: [{ content: "change one", priority: "medium", status: "in_progress" }] };
    expect(shown(editor.updates, sessionId)).toContainEqual(plan);
    expect(await editor.agent.request(methods.agent.session.setMode, { sessionId, modeId: "default" })).toEqual({});
    sim.push({ tool_calls: [call("call_go_edit", "search_replace", edit)] }, { content: "done" });
    await editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] });
    expect(await readFile(file, "utf8")).toBe("two\n");
    const bodies = sim.requests.splice(0).map((r) => r.body as ChatRequest);
    expect(bodies).toHaveLength(4);
    for (const body of bodies) {
      expect(body.tools).toEqual(bodies[0]!.tools);
      expect(body.messages[0]).toEqual(bodies[0]!.messages[0]);
    }
    expect(bodies[0]!.messages.at(-1)!.content).toMatch(/^\[#1\] look\n\n\[plan mode: change nothing yet\./);
    expect(String(bodies[1]!.messages.at(-1)!.content)).toMatch(/Error: plan mode: search_replace was not run/);
    expect(bodies[2]!.messages.at(-1)).toEqual({ role: "user", content: "[#4] go" });
    expect((await editor.close()).code).toBe(0);

    const again = await startEditor();
    try {
      expect(await again.agent.request(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] })).toEqual({ modes: expect.objectContaining({ currentModeId: "default" }) });
      await waitFor(
        () => again.updates.some((u) => u.update.sessionUpdate === "plan"),
        () => "the saved list as a plan update",
      );
      expect(shown(again.updates, sessionId).filter((u) => u.sessionUpdate === "plan")).toEqual([plan]);
    } finally {
      await again.close();
    }
  });
});

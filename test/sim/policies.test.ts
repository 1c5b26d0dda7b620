// The policies walk their tasks through a small agent loop written here (openai SDK, streaming, thinking
// on, tools that act on a temp copy of the fixtures), so they are checked over the real HTTP path.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { client, DELEGATE, READ_FILE, SEARCH_REPLACE, system, user } from "../helpers/sim.js";
import { tempProject } from "../helpers/temp-project.js";

type Msg = Record<string, unknown> & { role: string };
type Impl = Record<string, (args: Record<string, string>) => Promise<string> | string>;

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures");
// hel's search_replace names its texts old_text/new_text; the policies must read that from the schema.
const EDIT_TOOL = {
  ...SEARCH_REPLACE,
  function: {
    ...SEARCH_REPLACE.function,
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, old_text: { type: "string" }, new_text: { type: "string" } },
      required: ["path", "old_text", "new_text"],
    },
  },
};

let sim: Simulator | undefined;
let dir = "";
beforeEach(async () => {
  dir = await tempProject();
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function fileTools(root: string, log: { name: string; args: Record<string, string> }[], opts: { failEdits?: number } = {}): Impl {
  let failures = opts.failEdits ?? 0;
  return {
    read_file: ({ path }) => {
      try {
        const lines = readFileSync(join(root, path!), "utf8").split("\n");
        return lines.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join("\n");
      } catch {
        return `Error: ${path} does not exist.`;
      }
    },
    search_replace: ({ path, old_text, new_text }) => {
      if (failures > 0) {
        failures--;
        return `Error: old_text was not found in ${path}. Read the file again and copy the text exactly.`;
      }
      const file = join(root, path!);
      const text = readFileSync(file, "utf8");
      const count = text.split(old_text!).length - 1;
      if (count !== 1) return `Error: old_text occurs ${count} times in ${path}; it must occur exactly once.`;
      writeFileSync(file, text.replace(old_text!, new_text!));
      log.push({ name: "edited", args: { path: path! } });
      return `Edited ${path}: replaced 1 occurrence.`;
    },
  };
}

/** One agent: streams each turn, appends the assistant message as the API returned it, runs the tools. */
async function runAgent(c: OpenAI, messages: Msg[], tools: unknown[], impl: Impl, log: { name: string; args: Record<string, string> }[], maxSteps = 12): Promise<{ answer: string; messages: Msg[]; steps: number }> {
  for (let step = 1; step <= maxSteps; step++) {
    const stream = await c.chat.completions.create({
      model: "deepseek-flash",
      messages: messages as never,
      tools: tools as never,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 8192,
    });
    let content = "";
    let reasoning = "";
    const calls: { id: string; name: string; args: string }[] = [];
    for await (const chunk of stream) {
      const d = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] };
      content += d?.content ?? "";
      reasoning += d?.reasoning_content ?? "";
      for (const tc of d?.tool_calls ?? []) {
        const slot = (calls[tc.index] ??= { id: "", name: "", args: "" });
        if (tc.id) slot.id = tc.id;
        if (tc.function?.name) slot.name = tc.function.name;
        slot.args += tc.function?.arguments ?? "";
      }
    }
    if (calls.length === 0) {
      messages.push({ role: "assistant", content, reasoning_content: reasoning });
      return { answer: content, messages, steps: step };
    }
    messages.push({
      role: "assistant",
      content,
      reasoning_content: reasoning,
      tool_calls: calls.map((k) => ({ id: k.id, type: "function", function: { name: k.name, arguments: k.args } })),
    });
    for (const k of calls) {
      const args = JSON.parse(k.args) as Record<string, string>;
      log.push({ name: k.name, args });
      const result = impl[k.name] ? await impl[k.name]!(args) : `Error: unknown tool ${k.name}`;
      messages.push({ role: "tool", tool_call_id: k.id, content: result });
    }
  }
  throw new Error("max steps");
}

const SYSTEM = system("You are hel, a coding agent working in the project directory.");
const ROLE_NOTE = "You are a subagent. Another agent, your parent, has handed you the task below.\nAny messages above this one are the parent's conversation, shown to you as background only.";

describe("echo", () => {
  it("answers echo: <last user message>, with no tool calls", async () => {
    sim = await startSimulator({ policy: "echo" });
    const log: { name: string; args: Record<string, string> }[] = [];
    const r = await runAgent(client(sim.url), [SYSTEM, user("first"), { role: "assistant", content: "x" }, user("second")], [READ_FILE], {}, log);
    expect(r.answer).toBe("echo: second");
    expect(log).toEqual([]);
  });
});

describe("demo policy", () => {
  beforeEach(() => cpSync(join(FIXTURES, "demo"), dir, { recursive: true }));

  it("fixture: src/greet.js has the typo once, HEL.md has rules", () => {
    expect(readFileSync(join(dir, "src/greet.js"), "utf8").split("Helo").length - 1).toBe(1);
    expect(readFileSync(join(dir, "HEL.md"), "utf8")).toMatch(/^- /m);
  });

  it("walks read → search_replace → read → answer and fixes the file", async () => {
    sim = await startSimulator({ policy: "demo" });
    const log: { name: string; args: Record<string, string> }[] = [];
    const r = await runAgent(client(sim.url), [SYSTEM, user("Fix the typo in the greeting in src/greet.js")], [READ_FILE, EDIT_TOOL], fileTools(dir, log), log);
    expect(log.filter((e) => e.name !== "edited").map((e) => e.name)).toEqual(["read_file", "search_replace", "read_file"]);
    expect(log[1]!.args).toEqual({ path: "src/greet.js", old_text: "Helo", new_text: "Hello" });
    expect(r.steps).toBe(4);
    expect(r.answer).toMatch(/Hello/);
    expect(readFileSync(join(dir, "src/greet.js"), "utf8")).toContain("`Hello, ${name}! Welcome back.`");
    expect(sim.requests).toHaveLength(4);
    // Later requests hit the cache built by earlier ones.
    expect(sim.requests[3]!.usage!.prompt_cache_hit_tokens).toBeGreaterThan(0);
  });

  it("reacts to a failed edit: re-reads, retries once, then succeeds", async () => {
    sim = await startSimulator({ policy: "demo" });
    const log: { name: string; args: Record<string, string> }[] = [];
    const r = await runAgent(client(sim.url), [SYSTEM, user("Fix the typo in the greeting in src/greet.js")], [READ_FILE, EDIT_TOOL], fileTools(dir, log, { failEdits: 1 }), log);
    expect(log.filter((e) => e.name !== "edited").map((e) => e.name)).toEqual(["read_file", "search_replace", "read_file", "search_replace", "read_file"]);
    expect(r.answer).toMatch(/Fixed/);
    expect(readFileSync(join(dir, "src/greet.js"), "utf8")).not.toContain("Helo");
  });

  it("gives up with an answer after two failed edits", async () => {
    sim = await startSimulator({ policy: "demo" });
    const log: { name: string; args: Record<string, string> }[] = [];
    const r = await runAgent(client(sim.url), [SYSTEM, user("Fix the typo in the greeting in src/greet.js")], [READ_FILE, EDIT_TOOL], fileTools(dir, log, { failEdits: 5 }), log);
    expect(log.filter((e) => e.name === "search_replace")).toHaveLength(2);
    expect(r.answer).toMatch(/could not fix/i);
  });

  it("decides from the conversation, not the request index: a repeated request gets the same turn", async () => {
    sim = await startSimulator({ policy: "demo" });
    const c = client(sim.url);
    const messages = [SYSTEM, user("Fix the typo in the greeting in src/greet.js")];
    const a = await c.chat.completions.create({ model: "deepseek-flash", messages: messages as never, tools: [READ_FILE, EDIT_TOOL] });
    const b = await c.chat.completions.create({ model: "deepseek-flash", messages: messages as never, tools: [READ_FILE, EDIT_TOOL] });
    const name = (x: typeof a) => x.choices[0]!.message.tool_calls?.map((t) => (t.type === "function" ? t.function.name : ""));
    expect(name(a)).toEqual(["read_file"]);
    expect(name(b)).toEqual(["read_file"]);
  });
});

describe("h11 policy", () => {
  beforeEach(() => cpSync(join(FIXTURES, "h11"), dir, { recursive: true }));
  const INSTRUCTION =
    "Read services.ini to find the api service's port. Then delegate changing the port in deploy/api.yaml to that value with delegate_task. After the subagent reports, read deploy/api.yaml yourself to check the changed line, and answer with the new port number only.";

  it("fixture: 60 services, [api] port 8143 appears once, deploy/api.yaml has port: 8080", () => {
    const ini = readFileSync(join(dir, "services.ini"), "utf8");
    expect(ini.match(/^\[[\w-]+\]$/gm)).toHaveLength(60);
    expect(ini).toMatch(/\[api\]\nhost = api.internal\nport = 8143\n/);
    expect(ini.split("8143").length - 1).toBe(1);
    expect(readFileSync(join(dir, "deploy/api.yaml"), "utf8")).toMatch(/^port: 8080$/m);
  });

  async function delegated(mode: "full" | "task-only", root: string) {
    sim = await startSimulator({ policy: "h11" });
    const c = client(sim.url);
    const log: { name: string; args: Record<string, string> }[] = [];
    const childLog: { name: string; args: Record<string, string> }[] = [];
    const tools = [READ_FILE, EDIT_TOOL, DELEGATE];
    const parentMessages: Msg[] = [SYSTEM, user(INSTRUCTION)];
    const impl: Impl = {
      ...fileTools(root, log),
      delegate_task: async ({ task }) => {
        const lastAssistant = parentMessages.map((m) => m.role).lastIndexOf("assistant");
        const base = mode === "full" ? parentMessages.slice(0, lastAssistant) : [SYSTEM];
        const child = await runAgent(c, [...base, user(`${ROLE_NOTE}\n\nTask:\n${task}`)], tools, fileTools(root, childLog), childLog);
        return child.answer;
      },
    };
    const r = await runAgent(c, parentMessages, tools, impl, log);
    return { r, log, childLog };
  }

  it("parent delegates (full copy): child edits, parent re-reads and answers exactly the port", async () => {
    const { r, log, childLog } = await delegated("full", dir);
    expect(log.filter((e) => e.name !== "edited").map((e) => e.name)).toEqual(["read_file", "delegate_task", "read_file"]);
    expect(log[0]!.args["path"]).toBe("services.ini");
    expect(log[1]!.args["task"]).toContain("deploy/api.yaml");
    expect(log[1]!.args["task"]).toContain("8143");
    expect(childLog.filter((e) => e.name !== "edited").map((e) => e.name)).toEqual(["read_file", "search_replace", "read_file"]);
    expect(childLog[1]!.args).toMatchObject({ path: "deploy/api.yaml", old_text: "port: 8080", new_text: "port: 8143" });
    expect(r.answer).toBe("8143");
    expect(readFileSync(join(dir, "deploy/api.yaml"), "utf8")).toMatch(/^port: 8143$/m);
    // parent 4 requests + child 4 requests, on one server
    expect(sim!.requests).toHaveLength(8);
  });

  it("the child works from the task alone (task-only mode)", async () => {
    const { r, childLog } = await delegated("task-only", dir);
    expect(childLog.some((e) => e.name === "search_replace")).toBe(true);
    expect(r.answer).toBe("8143");
  });

  it("the port comes from the services.ini the parent read, not from the policy", async () => {
    const ini = join(dir, "services.ini");
    writeFileSync(ini, readFileSync(ini, "utf8").replace("port = 8143", "port = 8222"));
    const { r } = await delegated("full", dir);
    expect(r.answer).toBe("8222");
    expect(readFileSync(join(dir, "deploy/api.yaml"), "utf8")).toMatch(/^port: 8222$/m);
  });

  it("without delegate_task the parent does the edit itself and answers the port", async () => {
    sim = await startSimulator({ policy: "h11" });
    const log: { name: string; args: Record<string, string> }[] = [];
    const r = await runAgent(client(sim.url), [SYSTEM, user(INSTRUCTION)], [READ_FILE, EDIT_TOOL], fileTools(dir, log), log);
    expect(log.filter((e) => e.name !== "edited").map((e) => e.name)).toEqual(["read_file", "read_file", "search_replace", "read_file"]);
    expect(log.find((e) => e.name === "search_replace")!.args).toMatchObject({ old_text: "port: 8080", new_text: "port: 8143" });
    expect(r.answer).toBe("8143");
  });
});

describe("h9 policy", () => {
  it("remembers an identifier across turns, and says it does not know when it was never given", async () => {
    sim = await startSimulator({ policy: "h9" });
    const c = client(sim.url);
    const log: { name: string; args: Record<string, string> }[] = [];
    const first = await runAgent(c, [SYSTEM, user("Remember this identifier: ID-7f3a-K9. Reply with OK.")], [READ_FILE], {}, log);
    expect(first.answer).toBe("OK");
    const second = await runAgent(c, [...first.messages, user("What identifier did I ask you to remember?")], [READ_FILE], {}, log);
    expect(second.answer).toBe("ID-7f3a-K9");
    const fresh = await runAgent(c, [SYSTEM, user("What identifier did I ask you to remember?")], [READ_FILE], {}, log);
    expect(fresh.answer).toBe("I don't know");
  });

  it("finds the identifier in a summary that replaced the original message", async () => {
    sim = await startSimulator({ policy: "h9" });
    const log: { name: string; args: Record<string, string> }[] = [];
    const summary = system("Summary of the earlier conversation: the user asked the assistant to remember ID-42Q.");
    const r = await runAgent(client(sim.url), [SYSTEM, summary, user("What identifier did I ask you to remember?")], [], {}, log);
    expect(r.answer).toBe("ID-42Q");
  });
});

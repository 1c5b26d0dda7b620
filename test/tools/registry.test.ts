import { symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { executeToolCall, toolDefinitions } from "../../src/tools/registry.js";
import { readFileTool } from "../../src/tools/file/read-file.js";
import { searchReplaceTool } from "../../src/tools/file/search-replace.js";
import { runCommandTool } from "../../src/tools/command/run-command.js";
import { findFilesTool, grepTool } from "../../src/tools/search/tools.js";
import { SPILL_HEAD_BYTES, SPILL_LIMIT } from "../../src/tools/spill.js";
import { ToolError, type Tool } from "../../src/tools/types.js";
import type { ToolCall } from "../../src/wire/messages.js";
import { toolProject, withPolicy } from "../helpers/tools.js";

const TOOLS = [readFileTool, searchReplaceTool] as Tool[];

function call(name: string, args: string): ToolCall {
  return { id: "call_1", type: "function", function: { name, arguments: args } };
}

function fakeTool(run: () => Promise<string>, spill = true): Tool {
  return { name: "fake", description: "a test tool", schema: z.strictObject({}), spill, run };
}

describe("toolDefinitions", () => {
  it("derives byte-stable function definitions from the zod schemas", () => {
    const defs = toolDefinitions(TOOLS);
    expect(JSON.stringify(defs)).toBe(JSON.stringify(toolDefinitions([readFileTool, searchReplaceTool] as Tool[])));
    expect(defs.map((d) => d.function.name)).toEqual(["read_file", "search_replace"]);
    for (const def of defs) {
      expect(def.type).toBe("function");
      expect(def.function.parameters).not.toHaveProperty("$schema");
      expect(def.function.parameters).toMatchObject({ type: "object" });
      // Unknown fields are refused by hel's own check of the call, not announced in every request.
      expect(def.function.parameters).not.toHaveProperty("additionalProperties");
    }
    const [read, edit] = defs;
    expect(Object.keys(read!.function.parameters.properties as object)).toEqual(["path", "offset", "limit", "cursor"]);
    expect(read!.function.parameters).not.toHaveProperty("required");
    expect(read!.function.description).toBe("Read a file as numbered lines, or list a folder.");
    expect(edit!.function.parameters).toMatchObject({ required: ["path", "old_text", "new_text"] });
    expect(edit!.function.description).toBe("Replace old_text, exact and unique in the file, by new_text. Empty old_text: a new file.");
    // Bounds (offset's minimum of 1, zod's largest safe integer) are hel's to check: left out of what each request carries.
    expect((read!.function.parameters.properties as Record<string, unknown>).offset).toEqual({ type: "integer" });
    expect(JSON.stringify(defs)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });

  it("defines run_command in a few exact words: every request carries them", () => {
    const [command] = toolDefinitions([runCommandTool as Tool]);
    expect(command).toEqual({
      type: "function",
      function: {
        name: "run_command",
        description: "Run bash in the project, no stdin. Unless access is full: no net, writes only in the project and /tmp.",
        parameters: {
          type: "object",
          properties: { command: { type: "string" }, timeout_s: { type: "number" }, workdir: { type: "string" }, background: { type: "boolean" } },
          required: ["command"],
        },
      },
    });
    expect(JSON.stringify(command).length).toBeLessThan(360);
  });

  it("defines grep and find_files in few tokens: the fields carry no descriptions of their own", () => {
    const [grep, find] = toolDefinitions([grepTool, findFilesTool] as Tool[]);
    expect(grep!.function.parameters).toEqual({
      type: "object",
      properties: { pattern: { type: "string" }, path: { type: "string" }, glob: { type: "string" }, ignore_case: { type: "boolean" }, files_only: { type: "boolean" }, cursor: { type: "string" } },
    });
    expect(grep!.function.description).toBe("Search files by JS regex, per line; skips ignored and binary files.");
    expect(find!.function.parameters).toEqual({ type: "object", properties: { pattern: { type: "string" }, path: { type: "string" } }, required: ["pattern"] });
    expect(find!.function.description).toBe("Files matching a glob, newest first.");
  });
});

describe("executeToolCall", () => {
  it("runs a call and returns its content", async () => {
    const { ctx, dir } = await toolProject();
    await writeFile(path.join(dir, "a.txt"), "hello\n");
    expect(await executeToolCall(call("read_file", '{"path":"a.txt"}'), TOOLS, ctx)).toEqual({ content: "     1\thello", isError: false });
  });

  it("names the available tools for an unknown tool", async () => {
    const { ctx } = await toolProject();
    expect(await executeToolCall(call("write_file", "{}"), TOOLS, ctx)).toEqual({
      content: 'Error: unknown tool "write_file". Available tools: read_file, search_replace',
      isError: true,
    });
  });

  it("quotes the parse error of arguments that are not JSON and asks for valid JSON", async () => {
    const { ctx } = await toolProject();
    const result = await executeToolCall(call("read_file", '{"path": "a.txt"'), TOOLS, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^Error: the arguments of read_file are not valid JSON \(.*JSON.*\), so the call was not run\. Resend the call with its arguments as one JSON object of this schema: \{"type":"object","properties":\{"path":/,
    );
  });

  it("lists what is wrong with arguments that do not fit the schema", async () => {
    const { ctx } = await toolProject();
    const result = await executeToolCall(call("read_file", '{"path": 3, "offset": 0}'), TOOLS, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Error: invalid arguments for read_file:\n- path: .*expected string.*\n- offset: .*>=1.*\nResend the call/);

    const unknownKey = await executeToolCall(call("search_replace", '{"file_path": "a", "old_text": "", "new_text": ""}'), TOOLS, ctx);
    expect(unknownKey.content).toMatch(/- path: .*expected string/);
    expect(unknownKey.content).toMatch(/file_path/);

    const nothing = await executeToolCall(call("read_file", ""), TOOLS, ctx);
    expect(nothing.content).toMatch(/give path \(the file or directory to read\) or cursor/);

    const both = await executeToolCall(call("read_file", '{"cursor": "c_1", "offset": 5}'), TOOLS, ctx);
    expect(both.content).toMatch(/- offset: offset cannot be combined with cursor/);
  });

  it("turns a ToolError into an error result with its message", async () => {
    const { ctx } = await toolProject();
    const result = await executeToolCall(call("read_file", '{"path": "../x"}'), TOOLS, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Error: "\.\.\/x" is outside the project directory/);
    const thrown = await executeToolCall(call("fake", "{}"), [fakeTool(() => Promise.reject(new ToolError("do this next")))], ctx);
    expect(thrown).toEqual({ content: "Error: do this next", isError: true });
  });

  it("turns any other exception into a one-line error result", async () => {
    const { ctx, dir } = await toolProject();
    await symlink(path.join(dir, "loop-b"), path.join(dir, "loop-a"));
    await symlink(path.join(dir, "loop-a"), path.join(dir, "loop-b"));
    const loop = await executeToolCall(call("read_file", '{"path": "loop-a"}'), TOOLS, ctx);
    expect(loop.isError).toBe(true);
    expect(loop.content).toMatch(/^Error: read_file failed: ELOOP/);

    const crash = await executeToolCall(call("fake", "{}"), [fakeTool(() => Promise.reject(new Error("first\n  second")))], ctx);
    expect(crash).toEqual({ content: "Error: fake failed: first second", isError: true });
  });

  it("returns what an edit changed beside its content, with the secrets in the file's lines redacted", async () => {
    const { ctx, dir } = await toolProject();
    const secret = "sk-live-0123456789";
    await writeFile(path.join(dir, ".env"), `KEY=${secret}\nPORT=80\n`);
    const result = await executeToolCall(call("search_replace", '{"path":".env","old_text":"PORT=80","new_text":"PORT=8143"}'), TOOLS, withPolicy(ctx, { secrets: [secret] }));
    expect(result).toEqual({
      content: "Edited .env: replaced line 2; the new text is at line 2.",
      isError: false,
      edit: {
        path: ".env",
        created: false,
        added: 1,
        removed: 1,
        hunks: [{ old_start: 1, old_lines: 2, new_start: 1, new_lines: 2, lines: [" KEY=[REDACTED]", "-PORT=80", "+PORT=8143"] }],
      },
    });
    const failed = await executeToolCall(call("search_replace", '{"path":".env","old_text":"nowhere","new_text":"x"}'), TOOLS, ctx);
    expect(failed.isError).toBe(true);
    expect(failed.edit).toBeUndefined();
  });

  it("spills a long result of a spilling tool, never a read_file page", async () => {
    const { ctx, dir } = await toolProject();
    const long = "z".repeat(SPILL_LIMIT + 1);
    const spilled = await executeToolCall(call("fake", "{}"), [fakeTool(() => Promise.resolve(long))], ctx);
    expect(spilled.isError).toBe(false);
    expect(spilled.content).toMatch(/The whole result is in \.hel\/sessions\/s1\/spill\//);
    expect((await executeToolCall(call("fake", "{}"), [fakeTool(() => Promise.resolve(long), false)], ctx)).content).toBe(long);

    await writeFile(path.join(dir, "wide.txt"), `${"w".repeat(100)}\n`.repeat(1000));
    const page = await executeToolCall(call("read_file", '{"path": "wide.txt"}'), TOOLS, ctx);
    expect(Buffer.byteLength(page.content)).toBeGreaterThan(SPILL_LIMIT);
    expect(page.content).not.toMatch(/result too long/);
  });
});

describe("an error that would echo a huge argument", () => {
  const huge = "p".repeat(5 * 1024 * 1024);

  /** The error is cut to the conversation's bound, its beginning and its end (what to do next) kept. */
  function expectCut(result: { content: string; isError: boolean }, head: string, tail: string) {
    expect(result.isError).toBe(true);
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(SPILL_HEAD_BYTES + 100);
    expect(result.content.startsWith(`Error: ${head}`)).toBe(true);
    expect(result.content.endsWith(tail)).toBe(true);
    expect(result.content).toMatch(/ … \[\d+(\.\d)? MB of this error left out\] … /);
  }

  it("is cut like any long result, on every error path", async () => {
    const { ctx } = await toolProject();
    const args = (o: object) => JSON.stringify(o);
    expectCut(await executeToolCall(call(huge, "{}"), TOOLS, ctx), 'unknown tool "ppp', 'ppp". Available tools: read_file, search_replace');
    expectCut(
      await executeToolCall(call("read_file", args({ path: "a.txt", [huge]: 1 })), TOOLS, ctx),
      "invalid arguments for read_file:\n- arguments: Unrecognized key",
      "Resend the call with arguments that fix this (fields: path, offset, limit, cursor)",
    );
    expectCut(
      await executeToolCall(call("read_file", args({ path: `../${huge}` })), TOOLS, ctx),
      '"../ppp',
      'Paths must be inside the project directory and are written relative to it, e.g. "src/index.ts" ("." is the project root).',
    );
    expectCut(await executeToolCall(call("read_file", args({ path: huge })), TOOLS, ctx), "read_file failed: ENAMETOOLONG", "ppp'");
    expectCut(await executeToolCall(call("search_replace", args({ path: `/${huge}`, old_text: "", new_text: "x" })), TOOLS, ctx), '"/ppp', 'ppp".');
    expectCut(await executeToolCall(call("read_file", args({ cursor: huge })), TOOLS, ctx), 'unknown cursor "ppp', 'ppp": no read in this session made it. Read the file again with path (and offset)');
  });

  it("is redacted before it is cut, so no part of a secret shows at either cut", async () => {
    const { ctx } = await toolProject();
    const key = "sk-0123456789abcdef0123456789abcdef";
    const half = SPILL_HEAD_BYTES / 2;
    // One key straddles the first cut, another the second.
    const name = `${"n".repeat(half - 'Error: unknown tool "'.length - 10)}${key}${huge}${key}${"q".repeat(half - 30)}`;
    const result = await executeToolCall(call(name, "{}"), TOOLS, withPolicy(ctx, { secrets: [key] }));
    expect(result.content).toMatch(/\[5\.0 MB of this error left out\]/);
    for (let at = 0; at + 8 <= key.length; at++) expect(result.content).not.toContain(key.slice(at, at + 8));
  });
});

// Builders for session tests: a valid snapshot with a tool call and its result, and the SessionError a call throws.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { expect } from "vitest";
import { sessionPaths } from "../../src/session/paths.js";
import { SessionError } from "../../src/session/errors.js";
import type { Snapshot } from "../../src/session/snapshot-format.js";

export function makeSnapshot(projectDir: string, id: string, overrides: Partial<Snapshot> = {}): Snapshot {
  return {
    schema_version: 2,
    session_id: id,
    cwd: projectDir,
    created_at: "2025-01-01T10:00:00.000Z",
    updated_at: "2025-01-01T10:05:00.000Z",
    request_config: {
      model: "deepseek-flash",
      max_output_tokens: 8192,
      max_steps: 50,
      effort: "high",
      access: "edit",
      delegate: null,
      compaction: { enabled: false, threshold_tokens: null },
    },
    meter: { message_count: 4, input_tokens: 1234 },
    usage: { requests: 2, prompt_tokens: 2000, completion_tokens: 150, prompt_cache_hit_tokens: 1024, prompt_cache_miss_tokens: 976 },
    children: 0,
    stamps: 0,
    compaction: { failures: 0, stopped: false },
    archive: [],
    cursors: { c_0a1b2c3d4e5f: { path: "src/a.ts", nextByte: 4096, nextLine: 120, linesLeft: null, ino: 42, size: 9000, mtimeMs: 1700000000000 } },
    tools: [
      {
        type: "function",
        function: {
          name: "read_file",
          description: "Read a file.",
          parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
      },
    ],
    messages: [
      { role: "system", content: "You are hel." },
      { role: "user", content: "What does a.ts export?" },
      {
        role: "assistant",
        content: null,
        reasoning_content: "Read it first.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path": "src/a.ts"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "export const a = 1;\nexport const b = 2;\n" },
      { role: "assistant", content: "It exports `a` and `b`." },
    ],
    ...overrides,
  };
}

export const ID_A = "aaaa1111-1111-4111-8111-111111111111";
export const ID_B = "aaaa2222-2222-4222-8222-222222222222";
export const ID_C = "cccc3333-3333-4333-8333-333333333333";

/** Runs fn, expects a SessionError, and returns it. */
export async function sessionError(fn: () => Promise<unknown>): Promise<SessionError> {
  try {
    await fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SessionError);
    return e as SessionError;
  }
  throw new Error("expected a SessionError");
}

/**
 * Takes hel's signature out of a saved session's snapshot.json, leaving the file as a hel that did not
 * sign wrote it (or a clone carried it): the session is then not hel's own here until adopted.
 */
export async function unsign(projectDir: string, id: string): Promise<void> {
  const file = sessionPaths(projectDir, id).snapshot;
  const text = await readFile(file, "utf8");
  const unsigned = text.replace(/,"mac":"[0-9a-f]{64}"(?=,"messages":\[\n)/, "");
  expect(unsigned).not.toBe(text);
  await writeFile(file, unsigned);
}

/**
 * A snapshot.json whose first line is `header` as encodeSnapshot lays one out, and no messages: for
 * readers of the first line alone (`hel stats`), which never read further.
 */
export async function writeSnapshotHeader(projectDir: string, id: string, header: Record<string, unknown>): Promise<void> {
  const paths = sessionPaths(projectDir, id);
  await mkdir(paths.dir, { recursive: true });
  await writeFile(paths.snapshot, `${JSON.stringify(header).slice(0, -1)}${Object.keys(header).length > 0 ? "," : ""}"messages":[\n]}\n`);
}

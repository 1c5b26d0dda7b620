// What hel writes on a hook's stdin is what hooks/hook-payloads.ts says, so the schemas pinned in
// test/contracts/hooks.txt cannot drift from what a hook gets: a real hook at every event logs what it
// read, over a conversation that reaches each of them (a named child's tool calls, an automatic compaction
// and one the user asked for, a resume), and every line parses with its event's strict schema, keys in its order.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { HOOK_EVENTS } from "../../src/hooks/hook-config.js";
import { HOOK_PAYLOAD_SCHEMAS } from "../../src/hooks/hook-payloads.js";
import { openTestConversation, runInProcess } from "../helpers/conversation.js";
import { simulators } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";

const sim = simulators();

const call = (name: string, args: object) => ({ tool_calls: [{ name, arguments: JSON.stringify(args) }] });

it("every event's payload, a child's and a resume's included, parses with its event's strict schema", async () => {
  const log = join(await tempProject(), "payloads.jsonl");
  const hook = join(await tempProject(), "hook.mjs");
  await writeFile(hook, `import { appendFileSync, readFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(log)}, readFileSync(0, "utf8") + "\\n");\n`);
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(hook)}`;
  const dir = await tempProject();
  await mkdir(join(dir, ".hel", "agents"), { recursive: true });
  await writeFile(join(dir, ".hel", "config.json"), JSON.stringify({ hooks: Object.fromEntries(HOOK_EVENTS.map((event) => [event, [{ command }]])) }));
  await writeFile(join(dir, ".hel", "agents", "brief.md"), "---\ndescription: Reads one file\n---\n");
  await writeFile(join(dir, "a.txt"), "alpha\n");
  await writeFile(join(dir, "notes.txt"), Array.from({ length: 200 }, (_, j) => `line ${j}: the quick brown fox jumps over the lazy dog`).join("\n"));
  const s = await sim({
    script: [
      call("delegate_task", { task: "read a.txt", agent: "brief" }),
      call("read_file", { path: "a.txt" }),
      { content: "alpha" },
      call("read_file", { path: "notes.txt" }),
      { content: "## Goal\nGo on." },
      { content: "read" },
      { content: "## Goal\nGo on." },
      { content: "again" },
    ],
  });
  const args = ["-C", dir, "--trust", "--effort", "none", "--compact-at", "6000"];
  const hel = await openTestConversation({ sim: s, args });
  await hel.instruct("read them");
  expect(await hel.conversation.compact("keep the notes")).toBeNull();
  await hel.close();
  // The compacted view and the tool list estimated together are near 6,000: the resumed run's threshold is higher.
  const resumed = await runInProcess({ args: [...args, "--compact-at", "12000", "--resume", hel.conversation.session.id, "and again"], baseUrl: s.url });
  expect(resumed.code).toBe(0);
  // Each answer went where it was meant: the two compactions' summaries among them.
  expect(s.requests).toHaveLength(8);

  const payloads: Record<string, unknown>[] = (await readFile(log, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const problems = payloads.flatMap((payload) => {
    const schema = HOOK_PAYLOAD_SCHEMAS[payload.hook_event_name as keyof typeof HOOK_PAYLOAD_SCHEMAS];
    if (!schema) return [`no schema for ${String(payload.hook_event_name)}`];
    const parsed = schema.safeParse(payload);
    const order = Object.keys(schema.shape).filter((key) => key in payload);
    return [
      ...(parsed.success ? [] : [`${String(payload.hook_event_name)}: ${parsed.error.message}`]),
      ...(Object.keys(payload).join() === order.join() ? [] : [`${String(payload.hook_event_name)}: keys ${Object.keys(payload).join()}`]),
    ];
  });
  expect(problems).toEqual([]);
  // Each event was reached, and each variant of its payload the schemas name.
  expect(payloads.map((p) => [p.hook_event_name, p.source ?? p.trigger ?? p.tool_name ?? null, p.agent ?? null])).toEqual([
    ["SessionStart", "startup", null],
    ["UserPromptSubmit", null, null],
    ["PreToolUse", "delegate_task", null],
    ["PreToolUse", "read_file", { number: 1, kind: "delegate", name: "brief" }],
    ["PostToolUse", "read_file", { number: 1, kind: "delegate", name: "brief" }],
    ["PostToolUse", "delegate_task", null],
    ["PreToolUse", "read_file", null],
    ["PostToolUse", "read_file", null],
    ["PreCompact", "auto", null],
    ["Stop", null, null],
    ["PreCompact", "manual", null],
    ["SessionStart", "resume", null],
    ["UserPromptSubmit", null, null],
    ["Stop", null, null],
  ]);
});

// Which hooks a name calls for (hooks/hook-config.ts): the matcher is a regular expression over the
// whole tool name, "*", "" or none matches every name; a config without any hook opens none.
import { expect, it } from "vitest";
import { HooksSchema, matches } from "../../src/hooks/hook-config.js";
import { openHooks } from "../../src/hooks/hooks.js";

it("matches the whole name: Claude Code's patterns mean here what they mean there", () => {
  const hook = (matcher?: string) => ({ command: "true", ...(matcher === undefined ? {} : { matcher }) });
  expect(matches(hook("read_file"), "read_file")).toBe(true);
  expect(matches(hook("read"), "read_file")).toBe(false);
  expect(matches(hook("run_command|search_replace"), "search_replace")).toBe(true);
  expect(matches(hook("mcp__.*"), "mcp__github__search")).toBe(true);
  for (const all of [undefined, "", "*"]) expect(matches(hook(all), "anything")).toBe(true);
});

it("a config whose events list no hook opens none, so nothing is ever started for it", () => {
  const place = { projectDir: "/", env: {}, secrets: [], sessionId: () => "s", report: () => undefined };
  expect(openHooks({ ...place, hooks: HooksSchema.parse({ PreToolUse: [], Stop: [] }) })).toBeNull();
  expect(openHooks({ ...place, hooks: HooksSchema.parse({ Stop: [{ command: "true" }] }) })).not.toBeNull();
  expect(HooksSchema.safeParse({ PreTooluse: [] }).success).toBe(false);
});

// --help's settings paragraph, derived from the table (settings/help.ts), says word for word what the
// hand-written one said before the table, with the rows added since (provider, child-isolation, memory): only its lines may
// break elsewhere; the sentences about trust, written by hand, name every setting the table says needs it.
import { expect, it } from "vitest";
import { envHelp, settingsHelp } from "../../src/settings/help.js";
import { widening } from "../../src/cli/trust.js";
import { SETTINGS } from "../../src/settings/table.js";

const BEFORE = `Settings: ~/.config/hel/config.json ($XDG_CONFIG_HOME/hel/config.json) and the project's .hel/config.json,
  keys the long flag names (model, effort, access, network, auto-fold, compact-at, child-max-steps,
  child-max-tokens, child-model, max-cost, base-url, approval, provider, child-isolation, memory, context-window, checkpoint-max-mb: the disk the file
  checkpoints may use, default 1024; allow: command prefixes given the network unasked, such as
  ["git fetch"], matched on whole words of a simple command line; mcp-servers: MCP servers
  as in .mcp.json's mcpServers; mcp-timeout: seconds an MCP tool call may take, default 60) and hooks
  (commands run at SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, Stop with the
  event's JSON on stdin; exit 2 blocks); flags and HEL_MODEL/HEL_BASE_URL/HEL_PROVIDER win over the project's file,
  which wins over the user's. The project's base-url, network, allow, approval, hooks, MCP servers (its
  .mcp.json and its mcp-servers), memory auto and an access wider than the user's (or edit) are used only once you
  trust the project: hel asks in a terminal and keeps the answer in trusted.json beside config.json
  (asking again when those settings change); --trust trusts it for one run; otherwise they are ignored.`;

const words = (text: string) => text.split(/\s+/);

it("lists the config keys word for word as before, in lines of at most 103 characters", () => {
  const help = settingsHelp(SETTINGS);
  expect(words(help)).toEqual(words(BEFORE));
  for (const line of help.split("\n")) expect(line.length).toBeLessThanOrEqual(103);
  expect(
    help
      .split("\n")
      .slice(1)
      .every((line) => line.startsWith("  ") && !line.startsWith("   ")),
  ).toBe(true);
});

it("names the settings' environment variables as before", () => {
  expect(envHelp(SETTINGS)).toBe("  HEL_MODEL, HEL_BASE_URL, HEL_PROVIDER  defaults for --model, --base-url and --provider");
});

it("the --trust flag and the settings paragraph name every setting that needs trust (their words are written by hand)", () => {
  const trustHelp = SETTINGS.find((s) => s.key === "trust")?.flag?.help ?? "";
  const paragraph = settingsHelp(SETTINGS).replace(/\s+/g, " ");
  for (const { key, label } of widening(SETTINGS)) {
    expect(trustHelp).toContain(label ?? key);
    expect(paragraph.slice(paragraph.indexOf("The project's"))).toContain(label ?? key);
  }
});

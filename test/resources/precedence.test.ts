// The one precedence rule: a project's over the user's, a flag's over both, whatever order they come in.
import { expect, it } from "vitest";
import { byPrecedence, type Scope } from "../../src/resources/precedence.js";
import { runServers } from "../../src/resources/servers.js";

const entry = (name: string, scope: Scope, from: string) => ({ name, scope, from });

it("picks, of the entries named alike, the flag's, else the project's, else the user's; within one scope the first", () => {
  const chosen = byPrecedence(
    [
      entry("a", "user", "user a"),
      entry("b", "project", "project b"),
      entry("a", "project", "project a"),
      entry("b", "user", "user b"),
      entry("c", "flag", "flag c"),
      entry("c", "project", "project c"),
      entry("d", "project", "first d"),
      entry("d", "project", "second d"),
    ],
    (e) => e.name,
  );
  expect([...chosen.values()].map((e) => e.from)).toEqual(["project a", "project b", "flag c", "first d"]);
});

it("gives MCP servers --mcp-config's over the project's over the user's, each name where an object spread would put it", () => {
  const configured = { mine: { command: "user-mine" }, shared: { command: "project-shared", inProject: true as const }, theirs: { command: "project-theirs", inProject: true as const } };
  const given = { shared: { command: "given-shared" }, extra: { command: "given-extra" } };
  const servers = runServers(configured, given);
  expect(servers).toEqual({ mine: { command: "user-mine" }, shared: { command: "given-shared" }, theirs: { command: "project-theirs", inProject: true }, extra: { command: "given-extra" } });
  expect(Object.keys(servers)).toEqual(Object.keys({ ...configured, ...given }));
});

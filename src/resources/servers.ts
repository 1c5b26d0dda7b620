// The MCP servers a run may start: those of the config files and the project's .mcp.json that trust let
// through (cli/trust.ts, which reads them), and those of the file --mcp-config names, which win by name
// (precedence.ts). Starting them is mcp/servers.ts's.
import type { ServerEntry, ServerMap } from "../mcp/config.js";
import { byPrecedence, type Scope } from "./precedence.js";

/** `configured`: the config files' and .mcp.json's, a project's marked `inProject`; `given`: --mcp-config's. */
export function runServers(configured: ServerMap, given: ServerMap): ServerMap {
  const scoped = (map: ServerMap, scopeOf: (entry: ServerEntry) => Scope) => Object.entries(map).map(([name, entry]) => ({ name, entry, scope: scopeOf(entry) }));
  const entries = [...scoped(configured, (entry) => (entry.inProject ? "project" : "user")), ...scoped(given, () => "flag")];
  return Object.fromEntries([...byPrecedence(entries, (e) => e.name)].map(([name, { entry }]) => [name, entry]));
}

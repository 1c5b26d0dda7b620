// The MCP servers an editor hands hel with session/new or session/load, in the shape hel's own config
// gives them (mcp/config.ts): the editor's configuration is the user's, so they start without the
// trust a project's servers need, beside the servers hel's files name (the editor's win on a name).
// A transport hel does not speak is left out, and named so it can be said once. Pure.
import type { ServerMap } from "../../mcp/config.js";

/** One server as the protocol sends it: stdio (`command`), or `type: "http"`, or a transport hel lacks. */
export interface EditorServer {
  name: string;
  type?: string;
  command?: string;
  args?: string[];
  env?: { name: string; value: string }[];
  url?: string;
  headers?: { name: string; value: string }[];
}

const byName = (pairs: readonly { name: string; value: string }[] | undefined) => Object.fromEntries((pairs ?? []).map((p) => [p.name, p.value]));

export function editorServers(list: readonly EditorServer[]): { servers: ServerMap; unsupported: string[] } {
  const servers: ServerMap = {};
  const unsupported: string[] = [];
  for (const server of list) {
    if (server.type === "http" && server.url) servers[server.name] = { type: "http", url: server.url, headers: byName(server.headers) };
    else if ((server.type === undefined || server.type === "stdio") && server.command) servers[server.name] = { command: server.command, args: server.args ?? [], env: byName(server.env) };
    else unsupported.push(`${server.name} (${server.type ?? "no command"})`);
  }
  return { servers, unsupported };
}

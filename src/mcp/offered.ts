// What the model is offered of the servers' tools, and what it reads back from a call: pure, so the
// request prefix they make depends on nothing but the servers' lists. Each tool is offered as
// mcp__<server>__<tool>, sorted by server and then tool name (code points, not a locale), after hel's
// own. A name DeepSeek would refuse, or one that two tools would share, is left out with a warning:
// offered, it would fail every request, or run the other tool.
import { formatSize } from "../format.js";

/** A tool as a server lists it. */
export interface ServerTool {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
}

export interface OfferedTool {
  /** The name the model calls it by. */
  name: string;
  server: string;
  tool: ServerTool;
}

/** What every offered name starts with: how the catalogue (agent/toolbox.ts) tells a server's tool. */
export const SERVER_TOOL_PREFIX = "mcp__";

/** The function names DeepSeek takes. */
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function offeredTools(servers: readonly { name: string; tools: readonly ServerTool[] }[], warn: (line: string) => void): OfferedTool[] {
  const candidates: OfferedTool[] = [];
  for (const server of [...servers].sort((a, b) => byCodePoint(a.name, b.name))) {
    const seen = new Set<string>();
    for (const tool of [...server.tools].sort((a, b) => byCodePoint(a.name, b.name))) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      const name = `${SERVER_TOOL_PREFIX}${server.name}__${tool.name}`;
      if (FUNCTION_NAME.test(name)) candidates.push({ name, server: server.name, tool });
      else
        warn(
          `left out the tool ${JSON.stringify(tool.name)} of the MCP server ${JSON.stringify(server.name)}: DeepSeek takes only names of 1 to 64 letters, digits, _ and -, and ${JSON.stringify(name)} is not one — rename the server in its config if the server's name is the cause`,
        );
    }
  }
  const counts = new Map<string, number>();
  for (const c of candidates) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  for (const [name, count] of counts) {
    if (count < 2) continue;
    const sharing = candidates.filter((c) => c.name === name).map((c) => `${JSON.stringify(c.tool.name)} of ${JSON.stringify(c.server)}`);
    warn(`left out the MCP tools ${sharing.join(" and ")}: both would be offered as ${name} — rename one of the servers in its config`);
  }
  return candidates.filter((c) => counts.get(c.name) === 1);
}

/** One item of a call's result, as the SDK gives it. */
type ContentItem = { type: string; [key: string]: unknown };

/** A call's content as text: text as it is, anything else (an image, audio, a resource) as a short description of it. */
export function resultText(content: readonly ContentItem[], structured: unknown): string {
  if (content.length === 0) return structured === undefined ? "(no output)" : JSON.stringify(structured);
  return content.map(itemText).join("\n");
}

function itemText(item: ContentItem): string {
  const str = (key: string, of: Record<string, unknown> = item): string | undefined => (typeof of[key] === "string" ? (of[key] as string) : undefined);
  switch (item.type) {
    case "text":
      return str("text") ?? "";
    case "image":
    case "audio":
      return `[${item.type}: ${str("mimeType") ?? "unknown type"}, ${base64Size(str("data"))}]`;
    case "resource_link":
      return `[resource link: ${str("uri") ?? "?"}${str("name") ? ` (${str("name")})` : ""}]`;
    case "resource": {
      const resource = (typeof item.resource === "object" && item.resource !== null ? item.resource : {}) as Record<string, unknown>;
      const text = str("text", resource);
      if (text !== undefined) return text;
      return `[resource: ${str("uri", resource) ?? "?"}, ${str("mimeType", resource) ?? "unknown type"}, ${base64Size(str("blob", resource))}]`;
    }
    default:
      return `[${item.type} content, not shown]`;
  }
}

/** The size of what base64 `data` encodes. */
const base64Size = (data: string | undefined): string => formatSize(data === undefined ? 0 : Math.floor((data.length * 3) / 4));

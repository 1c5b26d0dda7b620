// Which MCP servers a run may start, as the files that name them say: `.mcp.json` (the shape other
// agents read, `{"mcpServers": {<name>: <server>}}`), a config file's `mcp-servers` (that map) and the
// file --mcp-config names. A server is a command to start (stdio) or a URL (streamable HTTP). A bad
// entry in a file hel finds by itself is one diagnostic naming the file and the server, and the rest
// stands; a bad --mcp-config file is the user's own typing, so it is a usage error. Nothing here
// starts a server or loads the SDK.
import { z } from "../zod.js";
import type { Diagnostic } from "../diagnostics.js";
import { HelError } from "../errors.js";
import { readProblem, readRegularFile } from "../fs/regular-file.js";

const StdioServerSchema = z.object({
  type: z.literal("stdio").optional(),
  command: z.string("command must name a program").min(1, "command must name a program"),
  args: z.array(z.string(), "args must be a list of strings").optional(),
  env: z.record(z.string(), z.string(), "env must map names to strings").optional(),
});

const HttpServerSchema = z.object({
  type: z.literal("http"),
  url: z.url("url must be a URL such as https://example.com/mcp"),
  headers: z.record(z.string(), z.string(), "headers must map names to strings").optional(),
});

export const ServerEntrySchema = z.union([HttpServerSchema, StdioServerSchema]);
/** `inProject`: a trusted project's server, started in the project; the user's own start in hel's own folder (servers.ts). No file can say it: it is set where the maps are merged. */
export type ServerEntry = z.infer<typeof ServerEntrySchema> & { inProject?: true };
export type ServerMap = Record<string, ServerEntry>;

const FileSchema = z.object({ mcpServers: z.record(z.string(), z.unknown(), "mcpServers must map server names to servers") });

/** Servers are named in a few lines; a file near this size is not such a list. */
const MAX_FILE_BYTES = 1024 * 1024;

/** Servers as a file names them, with a diagnostic for each entry (or the file) left out. */
export interface CheckedServers {
  servers: ServerMap;
  diagnostics: Diagnostic[];
}

/** The well-formed servers of a map read from `file`; each other entry is one diagnostic naming it. */
export function checkedServers(map: Readonly<Record<string, unknown>> | undefined, file: string): CheckedServers {
  const servers: ServerMap = {};
  const diagnostics: Diagnostic[] = [];
  for (const [name, value] of Object.entries(map ?? {})) {
    const parsed = parseEntry(value);
    if (parsed.ok) servers[name] = parsed.entry;
    else diagnostics.push({ file, problem: `left out the MCP server ${JSON.stringify(name)} of ${file}: ${parsed.problem} — fix its entry` });
  }
  return { servers, diagnostics };
}

/**
 * "github (npx -y server-github, with GITHUB_TOKEN=${GITHUB_TOKEN}), docs (https://…, with the header
 * Authorization: Bearer ${DOCS_TOKEN})": each server with what it starts or reaches and every value that
 * takes one of the user's variables, so a question of trust shows which secret goes where. `clean`
 * makes each piece fit for a terminal, so none cuts off another.
 */
export function serverSummary(map: ServerMap, clean: (text: string) => string): string {
  const taking = (values: Readonly<Record<string, string>> | undefined, how: (name: string, value: string) => string) =>
    Object.entries(values ?? {})
      .filter(([, value]) => /\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(value))
      .map(([name, value]) => `, with ${how(clean(name), clean(value))}`)
      .join("");
  return Object.entries(map)
    .map(([name, s]) =>
      s.type === "http"
        ? `${clean(name)} (${clean(s.url)}${taking(s.headers, (header, value) => `the header ${header}: ${value}`)})`
        : `${clean(name)} (${clean([s.command, ...(s.args ?? [])].join(" "))}${taking(s.env, (variable, value) => `${variable}=${value}`)})`,
    )
    .join(", ");
}

/** What a `.mcp.json` found in the project says; a missing file says nothing, a bad one is one diagnostic. */
export async function readFoundServers(file: string): Promise<CheckedServers> {
  const read = await readServersFile(file);
  if (read === MISSING) return { servers: {}, diagnostics: [] };
  if (typeof read === "string") return { servers: {}, diagnostics: [{ file, problem: `left out the MCP servers of ${file}: it ${read} — fix it or remove it` }] };
  return checkedServers(read, file);
}

/** The servers of the file --mcp-config names: anything wrong with it is a usage error (exit 2). */
export async function readGivenServers(file: string): Promise<ServerMap> {
  const read = await readServersFile(file);
  const bad = (what: string) => new HelError(`the MCP config ${file} ${what} — fix it, or leave out --mcp-config`, 2);
  if (typeof read === "string") throw bad(read);
  const servers: ServerMap = {};
  for (const [name, value] of Object.entries(read)) {
    const parsed = parseEntry(value);
    if (!parsed.ok) throw bad(`has a bad server ${JSON.stringify(name)}: ${parsed.problem}`);
    servers[name] = parsed.entry;
  }
  return servers;
}

const MISSING = "does not exist";

/** The file's `mcpServers` map, unchecked, or what is wrong with the file (MISSING for none). */
async function readServersFile(file: string): Promise<Record<string, unknown> | string> {
  let text: string;
  try {
    text = await readRegularFile(file, MAX_FILE_BYTES);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? MISSING : readProblem(e);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return `is not valid JSON (${(e as Error).message})`;
  }
  const parsed = FileSchema.safeParse(json);
  return parsed.success ? parsed.data.mcpServers : 'must hold a JSON object {"mcpServers": {...}}';
}

/** The entry checked against the kind it says it is (http when its type says so, else a command), so the problem named is its own. */
function parseEntry(value: unknown): { ok: true; entry: ServerEntry } | { ok: false; problem: string } {
  const http = typeof value === "object" && value !== null && (value as { type?: unknown }).type === "http";
  const parsed = (http ? HttpServerSchema : StdioServerSchema).safeParse(value);
  if (parsed.success) return { ok: true, entry: parsed.data };
  const issue = parsed.error.issues[0]!;
  const key = issue.path.length > 0 ? String(issue.path[0]) : "";
  const problem =
    issue.code === "invalid_type" && issue.path.length === 0
      ? 'an entry must be {"command", "args", "env"} or {"type": "http", "url", "headers"}'
      : issue.message.startsWith(key)
        ? issue.message
        : `${key}: ${issue.message}`;
  return { ok: false, problem };
}

// One running MCP server, through the official SDK: started over stdio (its command, where and as
// servers.ts says, with the environment hel gives commands plus its own `env` and a PATH no project file
// shadows, its stderr into its log) or reached over streamable HTTP; its tool list, its calls, and
// whether it is still there. This is the only module that loads the SDK, and it is imported only once a
// run has a server to start.
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { commandEnvironment } from "../tools/command/environment.js";
import { pathOutside } from "../tools/program-place.js";
import type { ServerEntry } from "./config.js";
import { BoundedReadBuffer, TOO_LARGE } from "./read-buffer.js";
import type { ServerTool } from "./offered.js";

export interface ConnectDeps {
  projectDir: string;
  /** hel's environment: what `${NAME}` in a server's env and headers takes its value from. */
  env: NodeJS.ProcessEnv;
  /** Where a stdio server starts (servers.ts: the project, or hel's own folder for the user's own servers). */
  cwd: string;
  /** Put before a stdio server's command: a PID namespace's. */
  prefix: readonly string[];
  /** How long the server may take to answer `initialize`. */
  startLimitMs: number;
  /** Where a stdio server's stderr goes. */
  log: { write(chunk: Buffer): void } | null;
  /** The server says its tool list changed. */
  onListChanged(): void;
}

// hel's version, as the server is told it (the same file from dist/mcp/ and from the bundle's folder).
const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

/** A call's result as the SDK gives it. */
export interface CallResult {
  content: { type: string; [key: string]: unknown }[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** How a call failed, for the words its error result says. */
export type CallFailure = { kind: "timeout" } | { kind: "closed"; why: string | null } | { kind: "refused"; message: string };

export interface Connection {
  listTools(): Promise<ServerTool[]>;
  call(tool: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<CallResult>;
  /** The process ended or the connection closed: a call must start it again. */
  readonly closed: boolean;
  close(): Promise<void>;
}

/** The most of one answer of a stdio server that is read (the SDK's own limit). */
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

/** `${NAME}` in a value: hel's environment variable NAME (empty when unset). */
const expand = (values: Readonly<Record<string, string>> | undefined, env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? "")]));

export async function connect(entry: ServerEntry, deps: ConnectDeps): Promise<Connection> {
  const client = new Client({ name: "hel", version });
  let closed = false;
  let lastError: string | null = null;
  client.onclose = () => {
    closed = true;
  };
  // The first error since the call began says why the connection went (what follows is its debris).
  client.onerror = (error) => {
    lastError ??= error.message;
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => deps.onListChanged());
  if (entry.type === "http") {
    await started(client, new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: expand(entry.headers, deps.env) } }), deps.startLimitMs);
  } else {
    // The API key and every other credential stay out, unless the server's own env names them; PATH
    // keeps no entry a project file could shadow the server's program through.
    const env = { ...commandEnvironment(deps.env), ...expand(entry.env, deps.env) };
    const [command, ...args] = [...deps.prefix, entry.command, ...(entry.args ?? [])];
    const transport = new StdioClientTransport({
      command: command!,
      args,
      env: { ...env, PATH: pathOutside(env.PATH, deps.projectDir) },
      cwd: deps.cwd,
      stderr: "pipe",
    });
    // The SDK's reader would end the server over one answer past its limit; this one fails that call only.
    (transport as unknown as { _readBuffer: BoundedReadBuffer })._readBuffer = new BoundedReadBuffer(MAX_ANSWER_BYTES);
    const log = deps.log;
    transport.stderr?.on("data", (chunk: Buffer) => log?.write(chunk));
    await started(client, transport, deps.startLimitMs);
  }
  return {
    get closed() {
      return closed;
    },
    async listTools() {
      const tools: ServerTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        for (const t of page.tools) tools.push({ name: t.name, description: t.description, inputSchema: t.inputSchema as Record<string, unknown> });
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return tools;
    },
    async call(tool, args, { signal, timeoutMs }) {
      lastError = null;
      try {
        return (await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: timeoutMs })) as CallResult;
      } catch (error) {
        throw new CallFailed(failureOf(error, closed, lastError));
      }
    },
    close: () => client.close(),
  };
}

/**
 * Connects and says `initialize`; a server that has not answered within `limitMs` (or fails) is given up
 * and its transport closed — the process ended, the request dropped — so nothing of it keeps hel running.
 */
async function started(client: Client, transport: Transport, limitMs: number): Promise<void> {
  try {
    await client.connect(transport, { timeout: limitMs });
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw error;
  }
}

export class CallFailed extends Error {
  constructor(readonly failure: CallFailure) {
    super(failure.kind);
  }
}

function failureOf(error: unknown, closed: boolean, lastError: string | null): CallFailure {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return { kind: "timeout" };
  // A server's own words would come with the SDK's "MCP error <code>:" prefix; hel's come without.
  if (error instanceof McpError && typeof error.data === "object" && error.data !== null && TOO_LARGE in error.data) return { kind: "refused", message: error.message.replace(/^MCP error -?\d+: /, "") };
  if (closed || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) return { kind: "closed", why: lastError };
  return { kind: "refused", message: error instanceof Error ? error.message : String(error) };
}

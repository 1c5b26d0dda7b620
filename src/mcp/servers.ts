// The MCP servers of one conversation, as tools hel offers. Nothing starts, and nothing of the SDK is
// loaded, until the first instruction asks for the tools: then every server starts at once, each
// given a bounded time to start and list its tools, and one that takes longer or fails is left out
// of the run with a warning. A server that says its list changed is listed again when the next
// instruction asks (never inside a turn, whose requests keep one tool list). A call that outlives
// `mcp-timeout`, or whose server died, is an error result; a dead server is started again at its
// tools' next call. Results are cleaned of terminal codes here; the registry redacts and spills them
// like any tool's.
import { join } from "node:path";
import { z } from "../zod.js";
import { oneLine } from "../errors.js";
import { ensureHelDir, helDir } from "../fs/hel-dir.js";
import { ownDir } from "../fs/own-dir.js";
import { createOwnFileSync } from "../fs/own-file.js";
import { TextCleaner } from "../tools/command/clean-text.js";
import { pidNamespacePrefix } from "../tools/command/pid-namespace.js";
import { findSandboxProgram } from "../tools/command/sandbox.js";
import { outsideDir } from "../tools/program-place.js";
import { ServerLog } from "./server-log.js";
import { ToolError, type Tool } from "../tools/types.js";
import type { ServerEntry, ServerMap } from "./config.js";
import type { CallFailure, Connection } from "./connection.js";
import { offeredTools, resultText, type OfferedTool, type ServerTool } from "./offered.js";

/** How long a server may take to start and list its tools. */
const START_LIMIT_MS = 10_000;

export interface ServersDeps {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  /** `mcp-timeout`: how long one call may wait for its answer. */
  timeoutS: number;
  warn(line: string): void;
  /** The start limit; a test's own, shorter one. */
  startLimitMs?: number;
}

export interface McpServers {
  /** The tools to offer for the next instruction, after hel's own. */
  tools(): Promise<Tool[]>;
  /** Each server that started, with the tools it offers (for `hel mcp ls`). */
  listing(): Promise<{ server: string; tools: Tool[] }[]>;
  close(): Promise<void>;
}

interface Server {
  name: string;
  entry: ServerEntry;
  connection: Connection | null;
  /** Its tools as last listed; null once it is left out of the run. */
  listed: ServerTool[] | null;
  stale: boolean;
  log: ServerLog | null;
}

/** The servers of `map`, or null when there are none, so that a run without any loads nothing of this. */
export function mcpServers(map: ServerMap, deps: ServersDeps): McpServers | null {
  const names = Object.keys(map);
  if (names.length === 0) return null;
  const servers: Server[] = names.map((name) => ({ name, entry: map[name]!, connection: null, listed: [], stale: false, log: null }));
  const limit = deps.startLimitMs ?? START_LIMIT_MS;
  let started: Promise<void> | null = null;
  let offered: { tools: Tool[]; list: OfferedTool[] } | null = null;

  const start = async (server: Server): Promise<Connection> => {
    const { connect } = await import("./connection.js");
    if (server.entry.type !== "http") server.log ??= await openLog(deps.projectDir, server.name, deps.warn);
    const connecting = connect(server.entry, {
      projectDir: deps.projectDir,
      ...(server.entry.type === "http" ? { cwd: deps.projectDir, prefix: [] } : await stdioPlace(server.entry, deps)),
      env: deps.env,
      startLimitMs: limit,
      log: server.log,
      onListChanged: () => {
        server.stale = true;
      },
    });
    try {
      server.connection = await withinLimit(connecting, limit, "it did not start");
      return server.connection;
    } catch (error) {
      // A connection that comes after the limit is closed, not left running.
      void connecting.then(
        (c) => c.close(),
        () => undefined,
      );
      throw error;
    }
  };

  const startAll = () =>
    Promise.all(
      servers.map(async (server) => {
        try {
          const connection = await start(server);
          server.listed = await withinLimit(connection.listTools(), limit, "it did not list its tools");
        } catch (error) {
          server.listed = null;
          await server.connection?.close().catch(() => undefined);
          const advice = server.entry.type === "http" ? `check that ${server.entry.url} answers` : `see ${logPath(deps.projectDir, server.name)} for what it said`;
          deps.warn(`left out the MCP server ${JSON.stringify(server.name)}: ${problem(error)} — ${advice}`);
        }
      }),
    ).then(() => undefined);

  const call = async (server: Server, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string> => {
    let connection = server.connection;
    if (connection === null || connection.closed) {
      try {
        connection = await start(server);
      } catch (error) {
        throw new ToolError(`the MCP server ${server.name} is not running and did not start again (${problem(error)}). Go on without its tools, or try again later`);
      }
    }
    const { CallFailed } = await import("./connection.js");
    try {
      const result = await connection.call(tool, args, { signal, timeoutMs: deps.timeoutS * 1000 });
      const text = cleaned(resultText(result.content ?? [], result.structuredContent));
      if (result.isError) throw new ToolError(`${tool} (MCP server ${server.name}) failed: ${text}`);
      return text;
    } catch (error) {
      if (error instanceof CallFailed) throw new ToolError(failureText(error.failure, server.name, tool, deps.timeoutS));
      throw error;
    }
  };

  const build = (): { tools: Tool[]; list: OfferedTool[] } => {
    const running = servers.filter((s) => s.listed !== null).map((s) => ({ name: s.name, tools: s.listed! }));
    const list = offeredTools(running, deps.warn);
    const tools = list.map((o): Tool => {
      const server = servers.find((s) => s.name === o.server)!;
      const { $schema: _, ...parameters } = o.tool.inputSchema;
      return {
        name: o.name,
        description: o.tool.description ?? "",
        schema: ArgsSchema,
        parameters,
        spill: true,
        run: (args, ctx) => call(server, o.tool.name, args as Record<string, unknown>, ctx.signal),
      };
    });
    return { tools, list };
  };

  const current = async (): Promise<{ tools: Tool[]; list: OfferedTool[] }> => {
    started ??= startAll();
    await started;
    const changed = servers.filter((s) => s.stale && s.listed !== null && s.connection && !s.connection.closed);
    for (const server of changed) {
      server.stale = false;
      try {
        server.listed = await withinLimit(server.connection!.listTools(), limit, "it did not list its tools");
      } catch (error) {
        deps.warn(`the MCP server ${JSON.stringify(server.name)} said its tools changed, but did not list them (${problem(error)}) — it keeps its earlier tools`);
      }
    }
    if (offered === null || changed.length > 0) offered = build();
    return offered;
  };

  return {
    tools: async () => (await current()).tools,
    listing: async () => {
      const { tools, list } = await current();
      return servers.filter((s) => s.listed !== null).map((s) => ({ server: s.name, tools: tools.filter((_, i) => list[i]!.server === s.name) }));
    },
    async close() {
      await Promise.all(servers.map((s) => s.connection?.close().catch(() => undefined)));
      for (const s of servers) s.log?.end();
    },
  };
}

/** An MCP tool takes whatever object its server's schema says; the server checks it. */
const ArgsSchema = z.record(z.string(), z.unknown());

function logPath(projectDir: string, server: string): string {
  // A server's name is the user's, and may hold a character a file name must not.
  return join(helDir(projectDir), "logs", `mcp-${server.replace(/[^A-Za-z0-9_.-]/g, "_")}.log`);
}

/**
 * Where a stdio server starts: a trusted project's in the project (the programs it names are hashed into
 * the trust), the user's own in hel's own empty folder, where `npx` resolves nothing the project planted;
 * each in a PID namespace of its own where one can be made, so that whatever it starts, `setsid`
 * included, ends with it, and it with hel, even a hel killed: bubblewrap is started by hel itself with
 * --die-with-parent (pid-namespace.ts puts a shell before it, for commands that must outlive a killed
 * hel, which a server must not).
 */
async function stdioPlace(entry: ServerEntry, deps: ServersDeps): Promise<{ cwd: string; prefix: readonly string[] }> {
  const cwd = entry.inProject ? deps.projectDir : await outsideDir(deps.env, deps.projectDir);
  const program = findSandboxProgram(deps.projectDir, deps.env);
  const namespace = program?.kind === "bwrap" ? pidNamespacePrefix(program.path) : null;
  return { cwd, prefix: namespace === null ? [] : namespace.slice(namespace.indexOf(program!.path)) };
}

/** The server's log, a new file each run, bounded (server-log.ts); no log (and one warning) where hel cannot write it. */
async function openLog(projectDir: string, server: string, warn: (line: string) => void): Promise<ServerLog | null> {
  const path = logPath(projectDir, server);
  try {
    await ensureHelDir(projectDir);
    await ownDir(projectDir, join(helDir(projectDir), "logs"), true);
    return new ServerLog(createOwnFileSync(path));
  } catch (error) {
    warn(`the MCP server ${JSON.stringify(server)}'s stderr goes nowhere: ${path} could not be written (${problem(error)})`);
    return null;
  }
}

function withinLimit<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function failureText(failure: CallFailure, server: string, tool: string, timeoutS: number): string {
  if (failure.kind === "timeout") return `the MCP server ${server} did not answer ${tool} within ${timeoutS} s (mcp-timeout), so the call was given up. Try it again, or go on without it`;
  if (failure.kind === "closed") {
    const why = failure.why ? ` (${oneLine(failure.why)})` : "";
    return `the MCP server ${server} stopped during the call of ${tool}${why}; it is started again at the next call of its tools`;
  }
  return `${tool} (MCP server ${server}): ${oneLine(failure.message)}`;
}

/** What the server sent, as text a terminal and the model can take: no escape sequences or control characters. */
function cleaned(text: string): string {
  const cleaner = new TextCleaner();
  return cleaner.push(Buffer.from(text)) + cleaner.end();
}

function problem(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error));
}

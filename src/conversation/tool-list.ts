// The parent's tool list: hel's own, assembled from the settings (the approval mode decides which
// run_command is offered), then the MCP servers' tools, offered before each instruction as they are
// then. Set between instructions only, so a turn's requests keep one list, and the session is told
// each new list. (servers.tools() gives the same list again until a server's list changes, and
// nothing changes then.)
import { assembleTools, withServerTools, type ToolDeps } from "../agent/children/assemble-tools.js";
import type { AgentSetup } from "../agent/loop/loop.js";
import { mcpServers, type McpServers } from "../mcp/servers.js";
import type { ActiveSession } from "../session/session.js";
import { toolDefinitions } from "../tools/registry.js";
import type { ApprovalMode, Tool } from "../tools/types.js";
import type { ToolDefinition } from "../wire/messages.js";
import type { Project } from "./project.js";

export interface ParentTools {
  /** hel's own tools, which the servers' follow. */
  tools: Tool[];
  definitions: ToolDefinition[];
  /** Started at the first instruction, and nothing of them loaded when none is configured (null). */
  servers: McpServers | null;
}

export function parentTools(project: Project, env: NodeJS.ProcessEnv, approval: ApprovalMode, deps: ToolDeps, session: ActiveSession): ParentTools {
  const { dir, options, warn } = project;
  const tools = assembleTools({ ...options, approval }, deps);
  const servers = mcpServers(options.mcpServers, { projectDir: dir, env, timeoutS: options.mcpTimeout, warn });
  const definitions = toolDefinitions(tools);
  // With servers, the list is known (and the session told it) once they have started.
  if (!servers) session.setTools(definitions);
  return { tools, definitions, servers };
}

/** Offers the servers' tools as they are now, after `own` in `run`. */
export function serverToolsOffer({ tools: own, servers }: ParentTools, run: AgentSetup, session: ActiveSession): () => Promise<void> {
  let served: readonly Tool[] | null = null;
  return async () => {
    if (!servers) return;
    const now = await servers.tools();
    if (now === served) return;
    served = now;
    run.tools = withServerTools(own, now);
    run.toolDefinitions = toolDefinitions(run.tools);
    session.setTools([...run.toolDefinitions]);
  };
}

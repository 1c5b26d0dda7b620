// `hel mcp ls`: the MCP servers a run here would start (the project's only when trusted, as for a
// run), started for real, with each tool they offer and the tokens its definition adds to every
// request. A server that does not start is named by its warning and shown as not started.
import { estimateTokens } from "../agent/meter.js";
import { mcpServers } from "../mcp/servers.js";
import { toolDefinitions } from "../tools/registry.js";
import type { RunOptions } from "./options.js";
import type { Io } from "../conversation/project.js";
import { openProject } from "./open-project.js";
import { count } from "../format.js";
import { terminalSafe } from "./term/kit/style.js";

export async function runMcpList(flags: RunOptions): Promise<number> {
  const io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
  const project = await openProject(flags, process.env.DEEPSEEK_API_KEY ?? "", io);
  const { options } = project;
  const out = (line: string) => io.stdout.write(`${terminalSafe(line)}\n`);
  const servers = mcpServers(options.mcpServers, { projectDir: project.dir, env: io.env, timeoutS: options.mcpTimeout, warn: project.warn });
  if (!servers) {
    out("no MCP servers here — name them in .mcp.json, in the config's mcp-servers, or with --mcp-config");
    return 0;
  }
  try {
    const listing = await servers.listing();
    for (const name of Object.keys(options.mcpServers).sort()) {
      const entry = options.mcpServers[name]!;
      const where = entry.type === "http" ? entry.url : [entry.command, ...(entry.args ?? [])].join(" ");
      const started = listing.find((l) => l.server === name);
      if (!started) {
        out(`${name} (${where}): not started`);
        continue;
      }
      const sizes = toolDefinitions(started.tools).map((d) => ({ name: d.function.name, tokens: estimateTokens(JSON.stringify(d)) }));
      const total = sizes.reduce((sum, s) => sum + s.tokens, 0);
      out(`${name} (${where}): ${count(sizes.length, "tool")}, ${total} tokens in every request`);
      for (const s of sizes) out(`  ${s.name}  ${s.tokens} tokens`);
    }
    return 0;
  } finally {
    await servers.close();
  }
}

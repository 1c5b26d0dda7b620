// What an MCP server costs a run before its first request: spawn → first request at the simulator of
// the built CLI with the reference server (server-everything, over stdio) named by --mcp-config,
// against the same run with none, interleaved so both see the machine alike. With a server, hel
// starts it and lists its tools before that request; without, nothing of the MCP client is loaded.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HEL_BIN } from "../scripts/hel-bin.js";
import { startSimulator } from "../sim/index.js";
import { runChild } from "./procs.js";
import { arrivalProxy } from "./startup.js";

export interface McpStartupResult {
  noneMs: number[];
  everythingMs: number[];
}

const EVERYTHING = join(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json"), "..", "dist", "index.js");

export async function measureMcpStartup(options: { runs: number; log: (line: string) => void }): Promise<McpStartupResult> {
  const sim = await startSimulator({ policy: "echo" });
  const proxy = await arrivalProxy(sim.url);
  const project = await mkdtemp(join(tmpdir(), "hel-bench-mcp-"));
  const config = join(project, "servers.json");
  await writeFile(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }));
  const env = { ...process.env, DEEPSEEK_API_KEY: "x", HEL_BASE_URL: proxy.url };
  const result: McpStartupResult = { noneMs: [], everythingMs: [] };
  const once = async (extra: string[]): Promise<number> => {
    let t0 = 0;
    const before = proxy.arrivals.length;
    const run = await runChild(process.execPath, [HEL_BIN, "-C", project, ...extra, "hi"], { env, onSpawn: (t) => (t0 = t) });
    const arrival = proxy.arrivals[before];
    if (run.code !== 0 || arrival === undefined) throw new Error(`hel ${extra.join(" ")} hi failed (exit ${run.code}): ${run.stderr.trim()}`);
    return arrival - t0;
  };
  try {
    // Unmeasured, so every measured run finds the files in the page cache.
    await once([]);
    await once(["--mcp-config", config]);
    for (let i = 0; i < options.runs; i++) {
      result.noneMs.push(await once([]));
      result.everythingMs.push(await once(["--mcp-config", config]));
    }
    options.log(`mcp: ${options.runs} × (no server, server-everything)`);
  } finally {
    await proxy.close();
    await sim.close();
    await rm(project, { recursive: true, force: true });
  }
  return result;
}

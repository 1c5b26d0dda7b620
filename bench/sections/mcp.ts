// The MCP section: a start's first request with an MCP server over stdio against one without.
import { measureMcpStartup } from "../mcp.js";
import { fmt, median } from "../stats.js";
import type { BenchSection } from "./section.js";

export const mcpSection: BenchSection = {
  name: "mcp",
  title: "2b. Start to first request with an MCP server",
  async run({ log }) {
    const r = await measureMcpStartup({ runs: 7, log });
    const none = median(r.noneMs);
    const everything = median(r.everythingMs);
    return {
      title: "2b. Start to first request with an MCP server (built CLI `hel -C <tmp> [--mcp-config <server-everything>] hi`)",
      rows: [
        { key: "mcp.first_request.none", label: "no server: spawn → first request", value: none, unit: "ms", note: `${r.noneMs.length} runs` },
        { key: "mcp.first_request.everything", label: "server-everything over stdio: spawn → first request", value: everything, unit: "ms", note: `${r.everythingMs.length} runs, interleaved` },
        { key: "mcp.first_request.ratio", label: "ratio with server / without", value: everything / none, unit: "x", note: `the server's share: ${fmt(everything - none, 0)} ms` },
      ],
      footnotes: ["With a server, hel starts it and lists its tools before its first request; without, nothing of the MCP client is loaded."],
    };
  },
};

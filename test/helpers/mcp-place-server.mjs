// An MCP server built with the SDK, run over stdio by the tests of where hel starts servers: its tool
// `where` says its working folder and PATH; with HEL_TEST_SETSID it first starts `setsid sleep
// <HEL_TEST_SETSID>` (a child that left its group); with HEL_TEST_STDERR_MB it first writes that many
// MB to stderr, then a last line "stderr ends here". Its tool `hang` writes the file HEL_TEST_READY
// and never answers. With HEL_TEST_STUBBORN it keeps running after its stdin ends, as a server holding
// a socket or a timer would.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

if (process.env.HEL_TEST_SETSID) spawn("setsid", ["sleep", process.env.HEL_TEST_SETSID], { stdio: "ignore", detached: true }).unref();
const mb = Number(process.env.HEL_TEST_STDERR_MB ?? 0);
const line = `${"e".repeat(1023)}\n`.repeat(1024);
for (let i = 0; i < mb; i++) if (!process.stderr.write(line)) await new Promise((resolve) => process.stderr.once("drain", resolve));
if (mb > 0) process.stderr.write("stderr ends here\n");

if (process.env.HEL_TEST_STUBBORN) setInterval(() => undefined, 1000);

const server = new McpServer({ name: "place", version: "1.0.0" });
server.registerTool("where", { description: "Says where it runs." }, async () => ({ content: [{ type: "text", text: JSON.stringify({ cwd: process.cwd(), path: process.env.PATH }) }] }));
server.registerTool("hang", { description: "Never answers." }, () => {
  writeFileSync(process.env.HEL_TEST_READY, "");
  return new Promise(() => {});
});
await server.connect(new StdioServerTransport());

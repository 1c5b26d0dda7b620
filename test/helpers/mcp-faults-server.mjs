// An MCP server built with the SDK, run over stdio by the MCP tests: tools that fail the ways a real
// server can (it dies mid-call, never answers, answers 100 MB), one that says its process id, and with `silent` a server that never answers at all, one whose answer is long enough to
// spill, one that adds a tool (the server then says its list changed), a name DeepSeek refuses, and
// names that clash with a second copy of this server named "faults__clash".
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

// `silent`: reads what it is sent and never answers, not even `initialize`.
if (process.argv.includes("silent")) {
  process.stdin.resume();
  await new Promise(() => {});
}

const server = new McpServer({ name: "faults", version: "1.0.0" });
const text = (t) => ({ content: [{ type: "text", text: t }] });

server.registerTool("echo", { description: "Says the text back.", inputSchema: { text: z.string() } }, async ({ text: t }) => text(`echo: ${t}`));
server.registerTool("crash", { description: "Dies while answering." }, async () => process.exit(3));
server.registerTool("hang", { description: "Never answers." }, () => new Promise(() => {}));
server.registerTool("huge", { description: "Answers 100 MB." }, async () => text("x".repeat(100 * 1024 * 1024)));
server.registerTool("pid", { description: "Says its process id." }, async () => text(String(process.pid)));
server.registerTool("big", { description: "Answers 100 KB of lines." }, async () => text(Array.from({ length: 2000 }, (_, i) => `line ${i} ${"y".repeat(40)}`).join("\n")));
server.registerTool("picture", { description: "Answers an image and a colour code." }, async () => ({
  content: [
    { type: "image", data: Buffer.alloc(3000).toString("base64"), mimeType: "image/png" },
    { type: "text", text: "\u001b[31mred\u001b[0m" },
  ],
}));
server.registerTool("grow", { description: "Adds the tool grown." }, async () => {
  server.registerTool("grown", { description: "Was added." }, async () => text("grown"));
  return text("grew");
});
server.registerTool("bad name", { description: "Its name has a space." }, async () => text("never offered"));
// With the copy named "faults__clash", offered as mcp__faults__clash__tool twice.
server.registerTool("clash__tool", { description: "Clashes." }, async () => text("clash"));
server.registerTool("tool", { description: "Clashes too." }, async () => text("tool"));

process.stderr.write("faults server up\n");
await server.connect(new StdioServerTransport());

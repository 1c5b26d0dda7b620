// The servers of a conversation, in process: none configured is nothing at all, and a server that
// does not start within the limit is left out with one warning, never waited for.
import { join } from "node:path";
import { expect, it } from "vitest";
import { mcpServers } from "../../src/mcp/servers.js";
import { tempProject } from "../helpers/temp-project.js";

it("is null without servers", () => {
  expect(mcpServers({}, { projectDir: "/", env: {}, timeoutS: 60, warn: () => undefined })).toBeNull();
});

it("leaves out a server that does not answer within the start limit, with one warning, and offers the others' tools", async () => {
  const project = await tempProject();
  const warnings: string[] = [];
  const servers = mcpServers(
    // A process that reads its stdin and never answers.
    { silent: { command: process.execPath, args: ["-e", "process.stdin.resume()"] } },
    { projectDir: project, env: process.env, timeoutS: 60, warn: (w) => warnings.push(w), startLimitMs: 300 },
  )!;
  try {
    expect(await servers.tools()).toEqual([]);
    expect(warnings).toEqual([`left out the MCP server "silent": it did not start within 0.3 s — see ${join(project, ".hel", "logs", "mcp-silent.log")} for what it said`]);
    // Asked again, it is not started again, nor warned about.
    expect(await servers.tools()).toEqual([]);
    expect(warnings).toHaveLength(1);
  } finally {
    await servers.close();
  }
});

// The files that name MCP servers: a bad entry of a file hel finds is one diagnostic and the rest
// stands; a bad --mcp-config is a usage error.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { HelError } from "../../src/errors.js";
import { checkedServers, readFoundServers, readGivenServers, serverSummary } from "../../src/mcp/config.js";
import { tempProject } from "../helpers/temp-project.js";

describe("checkedServers", () => {
  it("keeps stdio and http servers and has one diagnostic for each bad one, naming the file and the server", () => {
    const { servers, diagnostics } = checkedServers(
      {
        cmd: { command: "node", args: ["s.js"], env: { A: "1" } },
        web: { type: "http", url: "https://example.com/mcp", headers: { h: "v" } },
        noCommand: { args: [] },
        badUrl: { type: "http", url: "nope" },
        badArgs: { command: "x", args: "a b" },
        notObject: 3,
      },
      "/home/u/.config/hel/config.json",
    );
    const warnings = diagnostics.map((d) => d.problem);
    expect(new Set(diagnostics.map((d) => d.file))).toEqual(new Set(["/home/u/.config/hel/config.json"]));
    expect(servers).toEqual({ cmd: { command: "node", args: ["s.js"], env: { A: "1" } }, web: { type: "http", url: "https://example.com/mcp", headers: { h: "v" } } });
    expect(warnings).toEqual([
      'left out the MCP server "noCommand" of /home/u/.config/hel/config.json: command must name a program — fix its entry',
      'left out the MCP server "badUrl" of /home/u/.config/hel/config.json: url must be a URL such as https://example.com/mcp — fix its entry',
      'left out the MCP server "badArgs" of /home/u/.config/hel/config.json: args must be a list of strings — fix its entry',
      'left out the MCP server "notObject" of /home/u/.config/hel/config.json: an entry must be {"command", "args", "env"} or {"type": "http", "url", "headers"} — fix its entry',
    ]);
    const same = (text: string) => text;
    expect(serverSummary(servers, same)).toBe("cmd (node s.js), web (https://example.com/mcp)");
    // Every value that takes one of the user's variables is named with where it goes; each piece cleaned alone.
    const secretive = {
      gh: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_TOKEN: "${GITHUB_TOKEN}", PLAIN: "1" } },
      web: { type: "http" as const, url: "https://repo.example/mcp", headers: { Authorization: "Bearer ${DEEPSEEK_API_KEY}", Accept: "x" } },
    };
    expect(serverSummary(secretive, same)).toBe(
      "gh (npx -y @modelcontextprotocol/server-github, with GITHUB_TOKEN=${GITHUB_TOKEN}), web (https://repo.example/mcp, with the header Authorization: Bearer ${DEEPSEEK_API_KEY})",
    );
    expect(serverSummary(secretive, (text) => text.slice(0, 4))).toBe("gh (npx , with GITH=${GI), web (http, with the header Auth: Bear)");
  });
});

describe("the files", () => {
  it("a missing .mcp.json says nothing; one that is not a list of servers is one diagnostic", async () => {
    const dir = await tempProject();
    const file = join(dir, ".mcp.json");
    expect(await readFoundServers(file)).toEqual({ servers: {}, diagnostics: [] });
    await writeFile(file, JSON.stringify({ servers: {} }));
    expect(await readFoundServers(file)).toEqual({
      servers: {},
      diagnostics: [{ file, problem: `left out the MCP servers of ${file}: it must hold a JSON object {"mcpServers": {...}} — fix it or remove it` }],
    });
  });

  it("--mcp-config's file: missing, not JSON or with a bad server, a usage error", async () => {
    const dir = await tempProject();
    const file = join(dir, "given.json");
    const refusal = async () => (await readGivenServers(file).catch((e: unknown) => e)) as HelError;
    expect(await refusal()).toMatchObject({ exitCode: 2, message: `the MCP config ${file} does not exist — fix it, or leave out --mcp-config` });
    await writeFile(file, "{");
    expect((await refusal()).message).toMatch(/^the MCP config .* is not valid JSON \(.*\) — fix it, or leave out --mcp-config$/);
    await writeFile(file, JSON.stringify({ mcpServers: { a: { command: "" } } }));
    expect((await refusal()).message).toBe(`the MCP config ${file} has a bad server "a": command must name a program — fix it, or leave out --mcp-config`);
    await writeFile(file, JSON.stringify({ mcpServers: { a: { command: "node" } } }));
    expect(await readGivenServers(file)).toEqual({ a: { command: "node" } });
  });
});

// What the model is offered of the servers' tools and what it reads back: names, order, the tools
// left out, and content that is not text.
import { describe, expect, it } from "vitest";
import { offeredTools, resultText } from "../../src/mcp/offered.js";

const tool = (name: string) => ({ name, inputSchema: { type: "object" } });

describe("offeredTools", () => {
  it("names each tool mcp__<server>__<tool>, sorted by server and then tool name, whatever order the servers listed them in", () => {
    const warnings: string[] = [];
    const offered = offeredTools(
      [
        { name: "b", tools: [tool("z"), tool("a")] },
        { name: "a", tools: [tool("Y"), tool("y")] },
      ],
      (w) => warnings.push(w),
    );
    expect(offered.map((o) => o.name)).toEqual(["mcp__a__Y", "mcp__a__y", "mcp__b__a", "mcp__b__z"]);
    expect(offered[2]).toMatchObject({ server: "b", tool: { name: "a" } });
    expect(warnings).toEqual([]);
  });

  it("leaves out, with a warning each, a name DeepSeek refuses and the tools of two servers that would share a name", () => {
    const warnings: string[] = [];
    const offered = offeredTools(
      [
        { name: "x", tools: [tool("y__z"), tool("ok"), tool("has space"), tool("n".repeat(60))] },
        { name: "x__y", tools: [tool("z")] },
      ],
      (w) => warnings.push(w),
    );
    expect(offered.map((o) => o.name)).toEqual(["mcp__x__ok"]);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain('left out the tool "has space" of the MCP server "x"');
    expect(warnings[1]).toContain(`left out the tool "${"n".repeat(60)}"`);
    expect(warnings[2]).toBe('left out the MCP tools "y__z" of "x" and "z" of "x__y": both would be offered as mcp__x__y__z — rename one of the servers in its config');
  });
});

describe("resultText", () => {
  it("keeps text and describes the rest in a few words", () => {
    const content = [
      { type: "text", text: "one" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "audio", data: "", mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///a", name: "a" },
      { type: "resource", resource: { uri: "file:///b", text: "inline" } },
      { type: "resource", resource: { uri: "file:///c", mimeType: "application/zip", blob: "AAAAAAAA" } },
    ];
    expect(resultText(content, undefined)).toBe("one\n[image: image/png, 3 bytes]\n[audio: audio/wav, 0 bytes]\n[resource link: file:///a (a)]\ninline\n[resource: file:///c, application/zip, 6 bytes]");
  });

  it("gives structured content as JSON when there is no other, and says when there is nothing", () => {
    expect(resultText([], { sum: 3 })).toBe('{"sum":3}');
    expect(resultText([], undefined)).toBe("(no output)");
  });
});

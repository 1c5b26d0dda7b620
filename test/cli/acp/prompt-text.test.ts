import { describe, expect, it } from "vitest";
import { promptText } from "../../../src/cli/acp/prompt-text.js";

describe("an editor's prompt as an instruction", () => {
  it("is its text, with each linked file named by its path, and nothing of an embedded resource or image", () => {
    expect(
      promptText([
        { type: "text", text: "explain " },
        { type: "resource_link", uri: "file:///work/project/src/a.ts", name: "a.ts" },
        { type: "text", text: " please" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///etc/passwd", text: "root:x:0:0" } },
      ]),
    ).toBe("explain /work/project/src/a.ts please");
  });

  it("is empty when it has no text", () => {
    expect(promptText([{ type: "text", text: "  \n" }])).toBe("");
  });
});

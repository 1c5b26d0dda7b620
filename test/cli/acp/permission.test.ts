import { describe, expect, it } from "vitest";
import { approvalAnswer, permissionRequest } from "../../../src/cli/acp/permission.js";

describe("an approval asked through session/request_permission", () => {
  const request = { command: "npm install", justification: "it needs the network", agent: null };

  it("asks on the call that wants it, with the terminal's three answers", () => {
    expect(permissionRequest("s1", request, "call_7")).toEqual({
      sessionId: "s1",
      toolCall: {
        toolCallId: "call_7",
        title: "run outside the sandbox: npm install",
        kind: "execute",
        status: "pending",
        content: [{ type: "content", content: { type: "text", text: "it needs the network" } }],
        rawInput: { command: "npm install", justification: "it needs the network" },
      },
      options: [
        { optionId: "once", name: "Run it outside the sandbox once", kind: "allow_once" },
        { optionId: "always", name: "Always run this command unsandboxed in this session", kind: "allow_always" },
        { optionId: "no", name: "No", kind: "reject_once" },
      ],
    });
  });

  it("names the child that asks", () => {
    expect(permissionRequest("s1", { ...request, agent: "#2 delegate" }, null).toolCall.title).toBe("#2 delegate asks: run outside the sandbox: npm install");
  });

  it("takes the chosen answer; a cancelled question or an unknown option is no", () => {
    expect(approvalAnswer({ outcome: { outcome: "selected", optionId: "once" } })).toBe("once");
    expect(approvalAnswer({ outcome: { outcome: "selected", optionId: "always" } })).toBe("always");
    expect(approvalAnswer({ outcome: { outcome: "selected", optionId: "yes-please" } })).toBe("no");
    expect(approvalAnswer({ outcome: { outcome: "cancelled" } })).toBe("no");
  });
});

import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { approvalsThrough } from "../../../src/cli/acp/permission.js";

describe("an approval asked through session/request_permission", () => {
  const request = { command: "npm install", justification: "it needs the network", agent: null, grant: { network: true, writable: [] } };
  const signal = new AbortController().signal;
  /** An editor that answers `response` (or fails with it) and keeps what it was asked. */
  const editor = (response: RequestPermissionResponse | Error) => {
    const asked: { request: RequestPermissionRequest; signal: AbortSignal }[] = [];
    const ask = async (request: RequestPermissionRequest, signal: AbortSignal) => {
      asked.push({ request, signal });
      if (response instanceof Error) throw response;
      return response;
    };
    return {
      asked,
      approvals: approvalsThrough(
        ask,
        () => "s1",
        (command) => (command === "npm install" ? "call_7" : null),
      ),
    };
  };

  it("asks on the call that wants it, with the terminal's three answers, under the turn's signal", async () => {
    const { asked, approvals } = editor({ outcome: { outcome: "selected", optionId: "once" } });
    expect(await approvals(request, signal)).toBe("once");
    expect(asked).toEqual([
      {
        signal,
        request: {
          sessionId: "s1",
          toolCall: {
            toolCallId: "call_7",
            title: "give the network to: npm install",
            kind: "execute",
            status: "pending",
            content: [{ type: "content", content: { type: "text", text: "it needs the network" } }],
            rawInput: { command: "npm install", justification: "it needs the network", grant: { network: true, writable: [] } },
          },
          options: [
            { optionId: "once", name: "Give it this once", kind: "allow_once" },
            { optionId: "always", name: "Always give this command as much in this session", kind: "allow_always" },
            { optionId: "no", name: "No", kind: "reject_once" },
          ],
        },
      },
    ]);
  });

  it("names the child that asks, whose call the parent's view does not hold", async () => {
    const { asked, approvals } = editor({ outcome: { outcome: "selected", optionId: "always" } });
    expect(await approvals({ ...request, agent: "#2 delegate" }, signal)).toBe("always");
    expect(asked[0]!.request.toolCall).toMatchObject({ toolCallId: "approval-npm install", title: "#2 delegate asks: give the network to: npm install" });
  });

  it("is no when the question is cancelled, answered with an option hel did not offer, or fails", async () => {
    for (const response of [{ outcome: { outcome: "cancelled" as const } }, { outcome: { outcome: "selected" as const, optionId: "yes-please" } }, new Error("connection closed")]) {
      expect(await editor(response).approvals(request, signal)).toBe("no");
    }
  });
});

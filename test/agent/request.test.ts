// buildRequest's DeepSeek-only fields follow the provider, and forProvider keeps reading the session's
// record (a /model or /effort change is the next request's), as the settings it wraps do.
import { expect, it } from "vitest";
import { buildRequest, forProvider } from "../../src/agent/request.js";
import { requestSettings, type RunRequestConfig } from "../../src/session/snapshot-format.js";

const messages = [{ role: "user" as const, content: "hi" }];

it("openai-compatible: the same body without thinking and reasoning_effort, and a later change to the record is read", () => {
  // The session's record and the settings read from it, as a session makes them.
  const record: RunRequestConfig = {
    model: "a",
    max_output_tokens: 100,
    max_steps: 5,
    effort: "high",
    access: "edit",
    delegate: null,
    compaction: { enabled: false, threshold_tokens: null },
  };
  const settings = requestSettings(record);
  const deepseek = buildRequest(messages, [], settings);
  expect(deepseek).toMatchObject({ thinking: { type: "enabled" }, reasoning_effort: "high" });
  const compatible = forProvider(settings, "openai-compatible");
  const { thinking: _t, reasoning_effort: _e, ...rest } = deepseek;
  expect(buildRequest(messages, [], compatible)).toEqual(rest);
  record.model = "b";
  expect(buildRequest(messages, [], compatible).model).toBe("b");
  // A child's copy with its own model keeps the provider.
  expect(buildRequest(messages, [], { ...compatible, model: "c" })).not.toHaveProperty("thinking");
  expect(forProvider(settings, "deepseek")).toBe(settings);
});

// buildRequest's DeepSeek-only fields follow the provider, and forProvider keeps reading the session's
// record (a /model or /effort change is the next request's), as the settings it wraps do.
import { expect, it } from "vitest";
import { buildRequest, forProvider, type RequestSettings } from "../../src/agent/request.js";

const messages = [{ role: "user" as const, content: "hi" }];

it("openai-compatible: the same body without thinking and reasoning_effort, and a later change to the record is read", () => {
  const record = { model: "a", maxTokens: 100, effort: "high" as const };
  const settings: RequestSettings = {
    get model() {
      return record.model;
    },
    get maxTokens() {
      return record.maxTokens;
    },
    get effort() {
      return record.effort;
    },
  };
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

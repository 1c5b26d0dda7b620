import { describe, expect, it } from "vitest";
import { HelError } from "../../src/errors.js";
import { parseArgs } from "../../src/cli/options.js";

describe("hel acp on the command line", () => {
  it("takes the run's flags before it, for every session it opens", () => {
    const invocation = parseArgs(["--model", "deepseek-v4-pro", "--access", "read-only", "acp"], {}, "test");
    expect(invocation.kind).toBe("acp");
    if (invocation.kind !== "acp") return;
    expect(invocation.options).toMatchObject({ model: "deepseek-v4-pro", access: "read-only", prompt: [] });
  });

  it("refuses --json and --json-events, whose output would be mixed into the protocol on stdout", () => {
    for (const flag of ["--json", "--json-events"]) {
      expect(() => parseArgs([flag, "acp"], {}, "test")).toThrow(new HelError("hel acp keeps stdout for the protocol, so --json and --json-events cannot be used with it — leave them out", 2));
    }
  });
});

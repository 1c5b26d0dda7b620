import { describe, expect, it } from "vitest";
import { groupDigits } from "../src/format.js";

describe("groupDigits", () => {
  it("writes integers as toLocaleString('en-US') does, without starting ICU", () => {
    for (const n of [0, 7, 999, 1000, 2000, 12_345, 999_999, 1_000_000, 1_234_567_890, -45_000]) {
      expect(groupDigits(n)).toBe(n.toLocaleString("en-US"));
    }
  });
});

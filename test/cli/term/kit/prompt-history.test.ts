import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPromptHistory } from "../../../../src/cli/term/kit/prompt-history.js";
import { tempProject } from "../../../helpers/temp-project.js";

describe("the prompt's history", () => {
  it("keeps instructions in the order they were sent, the first one making .hel/ included", async () => {
    for (let round = 0; round < 20; round++) {
      const project = await tempProject();
      const history = await loadPromptHistory(project, ["sk-secret-value"], 100);
      // The prompt does not wait for one append before the next instruction is sent.
      const adds = ["the key is sk-secret-value", "two", "three"].map((text) => history.add(text));
      await Promise.all(adds);
      const lines = (await readFile(join(project, ".hel", "history"), "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines).toEqual(["the key is [REDACTED]", "two", "three"]);
    }
  });
});

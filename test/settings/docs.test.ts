// docs/settings.md is generated from the settings table: this fails when the file differs from what
// the table gives. `HEL_WRITE_DOCS=1 npx vitest run test/settings/docs.test.ts` writes it.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { settingsDoc } from "../../src/settings/docs.js";
import { SETTINGS } from "../../src/settings/table.js";

const FILE = join(import.meta.dirname, "..", "..", "docs", "settings.md");

it("docs/settings.md is the settings table's", () => {
  const doc = settingsDoc(SETTINGS);
  if (process.env.HEL_WRITE_DOCS === "1") writeFileSync(FILE, doc);
  expect(readFileSync(FILE, "utf8"), "docs/settings.md differs from src/settings/table.ts — HEL_WRITE_DOCS=1 npx vitest run test/settings/docs.test.ts").toBe(doc);
});

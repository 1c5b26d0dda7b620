// The global set-up's check: the tests refuse to run a build older than any of its sources.
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { staleBuild } from "./helpers/build-is-current.js";
import { tempProject } from "./helpers/temp-project.js";

const BUILD = [{ stamp: "dist/.built", outputs: ["dist/bin/hel.cjs", "dist/bundle/main.cjs"], sources: ["src", "rolldown.config.mjs"] }];

/** A fresh directory holding these files, each with its modification time in seconds after the epoch. */
async function tree(files: Record<string, number>): Promise<string> {
  const base = await tempProject();
  for (const [path, at] of Object.entries(files)) {
    await mkdir(join(base, dirname(path)), { recursive: true });
    await writeFile(join(base, path), path);
    await utimes(join(base, path), at, at);
  }
  return base;
}

describe("the check that the build is current", () => {
  it("passes a build started after every source was written, however old the outputs it left as they were", async () => {
    const base = await tree({ "src/a.ts": 1000, "src/deep/b.ts": 1001, "rolldown.config.mjs": 1002, "dist/bin/hel.cjs": 500, "dist/bundle/main.cjs": 600, "dist/.built": 2000 });
    expect(staleBuild(base, BUILD)).toBeNull();
  });

  it("names a source edited after the last build started, even when the outputs are newer", async () => {
    const base = await tree({ "src/a.ts": 1000, "dist/bin/hel.cjs": 3000, "dist/bundle/main.cjs": 3000, "dist/.built": 2000, "src/deep/b.ts": 2000.5 });
    expect(staleBuild(base, BUILD)).toBe("dist/.built (the last build) is older than src/deep/b.ts");
  });

  it("names a build output that is not there", async () => {
    const base = await tree({ "src/a.ts": 1000, "dist/bin/hel.cjs": 2000, "dist/.built": 2000 });
    expect(staleBuild(base, BUILD)).toBe("dist/bundle/main.cjs is missing");
  });

  it("names a missing stamp: a build that never finished", async () => {
    const base = await tree({ "src/a.ts": 1000, "dist/bin/hel.cjs": 2000, "dist/bundle/main.cjs": 2000 });
    expect(staleBuild(base, BUILD)).toBe("dist/.built is missing");
  });
});

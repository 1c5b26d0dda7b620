// The global set-up's check: the tests refuse to run a build older than any of its sources.
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { staleBuild } from "./helpers/build-is-current.js";
import { tempProject } from "./helpers/temp-project.js";

const BUILD = [{ outputs: ["dist/bin", "dist/bundle"], sources: ["src", "rolldown.config.mjs"] }];

/** Writes a file whose modification time is `at` seconds after the epoch. */
async function fileAt(base: string, path: string, at: number): Promise<void> {
  await mkdir(join(base, dirname(path)), { recursive: true });
  await writeFile(join(base, path), path);
  await utimes(join(base, path), at, at);
}

describe("the check that the build is current", () => {
  it("passes a build newer than every source", async () => {
    const base = await tempProject();
    await fileAt(base, "src/a.ts", 1000);
    await fileAt(base, "src/deep/b.ts", 1001);
    await fileAt(base, "rolldown.config.mjs", 1002);
    await fileAt(base, "dist/bin/hel.cjs", 2000);
    await fileAt(base, "dist/bundle/main.cjs", 2001);
    expect(staleBuild(base, BUILD)).toBeNull();
  });

  it("names the oldest built file and a source edited after it", async () => {
    const base = await tempProject();
    await fileAt(base, "src/a.ts", 1000);
    await fileAt(base, "dist/bin/hel.cjs", 2000);
    await fileAt(base, "dist/bundle/main.cjs", 2001);
    await fileAt(base, "src/deep/b.ts", 2000.5);
    expect(staleBuild(base, BUILD)).toBe("dist/bin/hel.cjs is older than src/deep/b.ts");
  });

  it("names a build output that is not there", async () => {
    const base = await tempProject();
    await fileAt(base, "src/a.ts", 1000);
    await fileAt(base, "dist/bin/hel.cjs", 2000);
    expect(staleBuild(base, BUILD)).toBe("dist/bundle is missing");
  });
});

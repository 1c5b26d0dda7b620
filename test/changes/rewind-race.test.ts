// A rewind racing a process that swaps one of the project's folders for a symlink to a folder outside
// (as a command of another session could): every removal and write goes beneath the project without
// following a link, so nothing outside is deleted, written or made, whichever moment the swap hits.
import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openCheckpoints } from "../../src/changes/checkpoints.js";
import { tempProject } from "../helpers/temp-project.js";

const NAMES = Array.from({ length: 12 }, (_, i) => `f${i}`);

describe("a rewind racing a folder swapped for a symlink", () => {
  it("never deletes, writes or makes a file outside the project in 30 rewinds", async () => {
    const project = await tempProject();
    const outside = await tempProject();
    for (const name of [...NAMES, ...NAMES.map((n) => `new-${n}`)]) await writeFile(join(outside, name), "outside");
    await mkdir(join(project, "d"));
    for (const name of NAMES) await writeFile(join(project, "d", name), "old");
    const store = await openCheckpoints(project);
    const before = await store.record("s/", "before");
    for (const name of NAMES) await writeFile(join(project, "d", name), "new");
    for (const name of NAMES) await writeFile(join(project, "d", `new-${name}`), "made");
    const after = await store.record("s/", "after");

    const racer = spawn("sh", ["-c", `cd '${project}' && while :; do mv -T d d.real 2>/dev/null; ln -sT '${outside}' d 2>/dev/null; rm -f d 2>/dev/null; mv -T d.real d 2>/dev/null; done`], { stdio: "ignore" });
    try {
      for (let round = 0; round < 30; round++) {
        // Back and forth: removals of the new files and writes of the old content, then the reverse.
        await store.restore(round % 2 === 0 ? before.commit : after.commit).catch(() => undefined);
      }
    } finally {
      racer.kill("SIGKILL");
      await new Promise((done) => racer.on("close", done));
    }
    expect((await readdir(outside)).sort()).toEqual([...NAMES, ...NAMES.map((n) => `new-${n}`)].sort());
    for (const name of await readdir(outside)) expect(await readFile(join(outside, name), "utf8")).toBe("outside");
  });
});

// The cached compile of the session modules for child processes is keyed on every file the compile
// reads, so an edit to any module the session imports, however indirectly, is what the children run.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { importClosure, sessionEntries, sourcesKey } from "./helpers/build-session.js";
import { ROOT } from "./helpers/hel.js";
import { tempProject } from "./helpers/temp-project.js";

/** A small source tree: the entry reaches w.ts directly, t.ts by a type import, u.ts by a re-export, lazy.ts by import(). */
const FILES: Record<string, string> = {
  "src/session/a.ts": 'import { z } from "zod";\nimport { w } from "../fs/w.js";\nexport const a = () => import("../fs/lazy.js").then(() => z.string().parse(String(w)));\n',
  "src/fs/w.ts": 'import type { T } from "./t.js";\nexport * from "./u.js";\nexport const w: T = 1;\n',
  "src/fs/t.ts": "export type T = number;\n",
  "src/fs/u.ts": "export const u = 2;\n",
  "src/fs/lazy.ts": "export {};\n",
  "src/other.ts": 'import { a } from "./session/a.js";\nexport const other = a;\n',
};

async function sourceTree(): Promise<string> {
  const base = await tempProject();
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(join(base, dirname(path)), { recursive: true });
    await writeFile(join(base, path), text);
  }
  return base;
}

describe("the session build's cache key", () => {
  it("covers the entries and every file they reach through relative imports, and nothing else", async () => {
    const base = await sourceTree();
    expect(importClosure(base, ["src/session/a.ts"])).toEqual(["src/fs/lazy.ts", "src/fs/t.ts", "src/fs/u.ts", "src/fs/w.ts", "src/session/a.ts"]);
  });

  it("changes when a file the entry imports only indirectly changes, and only then", async () => {
    const base = await sourceTree();
    const key = () => sourcesKey(base, ["src/session/a.ts"]);
    const before = key();
    await writeFile(join(base, "src/other.ts"), "export const other = 3;\n");
    expect(key()).toBe(before);
    for (const file of ["src/fs/t.ts", "src/fs/u.ts", "src/fs/lazy.ts"]) {
      await writeFile(join(base, file), "export const edited = true;\n");
      expect(key(), file).not.toBe(before);
      await writeFile(join(base, file), FILES[file]!);
      expect(key(), file).toBe(before);
    }
  });

  it("for hel's own session modules, includes the atomic writer and the serializer they save with", () => {
    const closure = importClosure(ROOT, sessionEntries());
    expect(closure).toEqual(expect.arrayContaining([...sessionEntries(), "src/fs/atomic-write.ts", "src/wire/serialize.ts"]));
  });
});

// Where the built `hel` executable is, for the tools that run it as a child process (the demo,
// evals, the benchmark and the tests): the bundle in dist/bin, exactly what users run. The project
// root is found by walking up to hel's package.json, because this module runs both from its source
// (under vitest) and compiled into out/, at different depths.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function projectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "hel-agent") return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json of hel above ${from}`);
  }
}

export const PROJECT_ROOT = projectRoot(dirname(fileURLToPath(import.meta.url)));
export const HEL_BIN = join(PROJECT_ROOT, "dist", "bin", "hel.cjs");

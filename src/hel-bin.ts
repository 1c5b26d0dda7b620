// Where the built `hel` executable is, for the tools that run it as a child process (the demo,
// evals, the benchmark and the tests): the bundle in dist/bin, exactly what users run.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const HEL_BIN = join(PROJECT_ROOT, "dist", "bin", "hel.cjs");

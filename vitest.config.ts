import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import type { Reporter, TestModule } from "vitest/node";

// Ends the run with the plain `N passed, N failed` line that CI reads whatever the runner.
const closingLine: Reporter = {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
  },
};

const TESTS = "test/**/*.test.ts";
// The files that run hel in this process (test/helpers/conversation.ts) load most of src/ each; they
// share one module graph per worker instead of loading it again per file. They leave no state behind:
// every run gets its own project, simulator, environment and output.
const IN_PROCESS = readdirSync("test", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => join("test", file))
  .filter((file) => /from "(\.\.\/)+helpers\/conversation\.js"/.test(readFileSync(file, "utf8")));

export default defineConfig({
  // Vite strips types from .ts and .mts only; hel's launcher (src/bin/*.cts) is CommonJS TypeScript.
  oxc: { include: /\.(m|c)?tsx?$/ },
  test: {
    projects: [
      { extends: true, test: { name: "in-process", include: IN_PROCESS, isolate: false } },
      { extends: true, test: { name: "isolated", include: [TESTS], exclude: IN_PROCESS } },
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most tests wait on the processes they start (hel, the simulator, sandboxed commands): on two cores,
    // three files at a time keep both busy (docs/measured.md has the suite's times by worker count).
    maxWorkers: 3,
    // Refuses to run when dist/ or out/ is older than its sources (see the file).
    globalSetup: ["test/helpers/build-is-current.ts"],
    reporters: ["default", closingLine],
    // hel's own state (checkpoint stores, the per-user key) goes to a folder of the tests', never the
    // state folder of the user who runs them; child processes inherit it.
    env: { XDG_STATE_HOME: join(tmpdir(), "hel-test-state-home") },
  },
});

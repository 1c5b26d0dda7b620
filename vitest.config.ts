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

export default defineConfig({
  // Vite strips types from .ts and .mts only; hel's launcher (src/bin/*.cts) is CommonJS TypeScript.
  oxc: { include: /\.(m|c)?tsx?$/ },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most tests wait on the processes they start (hel, the simulator, sandboxed commands), so two
    // files at a time keep two cores busy where vitest's default (one less than the cores) left one idle.
    maxWorkers: 2,
    // Refuses to run when dist/ or out/ is older than its sources (see the file).
    globalSetup: ["test/helpers/build-is-current.ts"],
    reporters: ["default", closingLine],
    // hel's own state (checkpoint stores, the per-user key) goes to a folder of the tests', never the
    // state folder of the user who runs them; child processes inherit it.
    env: { XDG_STATE_HOME: join(tmpdir(), "hel-test-state-home") },
  },
});

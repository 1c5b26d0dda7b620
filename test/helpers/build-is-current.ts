// Vitest's global set-up: the CLI tests run the built hel (dist/) and the evals test runs out/, so a
// build older than its sources would test yesterday's code. `npm test` builds first; a bare
// `npx vitest run` after an edit is refused here, with one line saying what to run.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

/** What the tests run as child processes, and the sources each is built from. */
export const BUILDS = [
  // scripts/build.mjs stamps `stamp` with the time each build started: the builds are incremental,
  // so an output left as it was says nothing of when its sources were last built.
  { stamp: "dist/.built", outputs: ["dist/bin/hel.cjs", "dist/bundle/main.cjs"], sources: ["src", "build", "rolldown.config.mjs"] },
  { stamp: "out/.built", outputs: ["out/evals/main.js"], sources: ["src", "sim", "evals", "scripts"] },
] as const;

interface Build {
  stamp: string;
  outputs: readonly string[];
  sources: readonly string[];
}

/** Why the builds under `root` are not those of its current sources, or null when they are. */
export function staleBuild(root: string, builds: readonly Build[] = BUILDS): string | null {
  for (const { stamp, outputs, sources } of builds) {
    const missing = [...outputs, stamp].find((path) => !existsSync(join(root, path)));
    if (missing !== undefined) return `${missing} is missing`;
    const builtAt = statSync(join(root, stamp)).mtimeMs;
    const newer = files(root, sources).find((f) => f.mtimeMs > builtAt);
    if (newer) return `${stamp} (the last build) is older than ${relative(root, newer.path)}`;
  }
  return null;
}

function files(root: string, paths: readonly string[]): { path: string; mtimeMs: number }[] {
  const found: { path: string; mtimeMs: number }[] = [];
  const visit = (path: string): void => {
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else found.push({ path, mtimeMs: stat.mtimeMs });
  };
  for (const path of paths) if (existsSync(join(root, path))) visit(join(root, path));
  return found;
}

export default function refuseStaleBuild(): void {
  const stale = staleBuild(resolve(import.meta.dirname, "../.."));
  if (stale === null) return;
  // A thrown error would come with vitest's stack trace and banners; this is the whole message.
  process.stderr.write(`hel tests: ${stale} — run \`npm run build:dev\` first (\`npm test\` does)\n`);
  process.exit(1);
}

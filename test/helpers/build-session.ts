// Child processes cannot import TypeScript (Node 20 has no type stripping and tsx is not installed),
// so tests that need a second real process compile src/session with tsc into a cache directory keyed
// by the sources' hash. This always tests the current source, whether or not `npm run build` ran.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");

export function buildSessionModules(): string {
  const sources = [
    ...readdirSync(join(root, "src/session")).filter((f) => f.endsWith(".ts")).map((f) => `src/session/${f}`),
    "src/errors.ts",
    "src/fs/hel-dir.ts",
    "src/wire/messages.ts",
    "src/wire/tool-pairing.ts",
    "src/tools/cursors.ts",
    "src/agent/usage.ts",
  ].filter((f) => existsSync(join(root, f)));
  const hash = createHash("sha256");
  for (const f of sources.sort()) hash.update(f).update(readFileSync(join(root, f)));
  // Inside the repo so the compiled files resolve proper-lockfile and zod from its node_modules.
  const out = join(root, "node_modules/.cache/hel-session-test", hash.digest("hex").slice(0, 16));
  if (existsSync(join(out, "session/lease.js"))) return out;

  const tmp = `${out}.${process.pid}`;
  const entries = sources.filter((f) => f.startsWith("src/session/") && !f.endsWith("/session.ts"));
  try {
    execFileSync(
      process.execPath,
      [
        join(root, "node_modules/typescript/bin/tsc"),
        ...["--outDir", tmp, "--rootDir", join(root, "src"), "--module", "nodenext", "--moduleResolution", "nodenext"],
        ...["--target", "es2022", "--strict", "--skipLibCheck", "--esModuleInterop", "--types", "node", "--noEmitOnError", "false"],
        ...entries.map((f) => join(root, f)),
      ],
      { cwd: root, stdio: "pipe" },
    );
  } catch {
    // Type errors elsewhere still emit JavaScript; only a missing output is fatal (checked below).
  }
  if (!existsSync(join(tmp, "session/lease.js"))) throw new Error(`could not compile src/session into ${tmp}`);
  // node_modules is not a package scope of its own: say explicitly that these .js files are ES modules.
  writeFileSync(join(tmp, "package.json"), '{"type":"module"}\n');
  mkdirSync(join(out, ".."), { recursive: true });
  try {
    renameSync(tmp, out);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another test file built the same sources first
  }
  pruneOldBuilds(join(out, ".."));
  return out;
}

/** Builds of older sources pile up as the code changes; an hour-old one is no longer in use. */
function pruneOldBuilds(cache: string): void {
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    if (Date.now() - statSync(path).mtimeMs > 3600_000) rmSync(path, { recursive: true, force: true });
  }
}

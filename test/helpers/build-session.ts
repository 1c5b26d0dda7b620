// Child processes cannot import TypeScript (Node 20 has no type stripping and tsx is not installed),
// so tests that need a second real process compile src/session with tsc into a cache directory. The
// cache is keyed on every file that compile reads: the entries and, transitively, each file they
// import, so an edit anywhere below src/session (fs/atomic-write.ts, say) builds afresh. This always
// tests the current source, whether or not `npm run build` ran.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");

const TSC_OPTIONS = [...["--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022"], ...["--strict", "--skipLibCheck", "--esModuleInterop", "--types", "node", "--noEmitOnError", "false"]];

/** The session modules the child processes load; session.ts (the running session) is not one of them. */
export function sessionEntries(): string[] {
  return readdirSync(join(root, "src/session"))
    .filter((f) => f.endsWith(".ts") && f !== "session.ts")
    .map((f) => `src/session/${f}`);
}

export function buildSessionModules(): string {
  const entries = sessionEntries();
  const key = createHash("sha256").update(TSC_OPTIONS.join(" ")).update(sourcesKey(root, entries)).digest("hex").slice(0, 16);
  // Inside the repo so the compiled files resolve proper-lockfile and zod from its node_modules.
  const out = join(root, "node_modules/.cache/hel-session-test", key);
  if (existsSync(join(out, "session/lease.js"))) return out;

  const tmp = `${out}.${process.pid}`;
  try {
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "--outDir", tmp, "--rootDir", join(root, "src"), ...TSC_OPTIONS, ...entries.map((f) => join(root, f))], { cwd: root, stdio: "pipe" });
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

/** A hash of the paths and contents of every file in importClosure(base, entries). */
export function sourcesKey(base: string, entries: readonly string[]): string {
  const hash = createHash("sha256");
  for (const file of importClosure(base, entries))
    hash
      .update(file)
      .update("\0")
      .update(readFileSync(join(base, file)))
      .update("\0");
  return hash.digest("hex");
}

// Every form a module names another in: `import … from`, `export … from`, `import "…"` and `import("…")`.
// Only relative specifiers: packages come from node_modules at run time and are not compiled.
const RELATIVE_IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.\.?\/[^"']+)["']/g;

/**
 * The entries (paths relative to `base`) and every file they reach through relative imports, type-only
 * ones included since tsc reads those too; sorted. A specifier `./x.js` is the source `./x.ts`, as
 * nodenext resolution has it; one that names no file is left to tsc to report.
 */
export function importClosure(base: string, entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(join(base, file), "utf8").matchAll(RELATIVE_IMPORT)) {
      const target = sourceOf(base, relative(base, resolve(base, dirname(file), specifier!)));
      if (target !== null) pending.push(target);
    }
  }
  return [...seen].sort();
}

const SOURCE_EXTENSIONS: Record<string, string[]> = { ".js": [".ts", ".tsx", ".js"], ".mjs": [".mts", ".mjs"], ".cjs": [".cts", ".cjs"] };

function sourceOf(base: string, path: string): string | null {
  const ext = Object.keys(SOURCE_EXTENSIONS).find((e) => path.endsWith(e));
  const candidates = ext ? SOURCE_EXTENSIONS[ext]!.map((e) => path.slice(0, -ext.length) + e) : [path, `${path}.ts`, join(path, "index.ts")];
  return candidates.find((c) => existsSync(join(base, c)) && statSync(join(base, c)).isFile()) ?? null;
}

/** Builds of older sources pile up as the code changes; an hour-old one is no longer in use. */
function pruneOldBuilds(cache: string): void {
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    if (Date.now() - statSync(path).mtimeMs > 3600_000) rmSync(path, { recursive: true, force: true });
  }
}

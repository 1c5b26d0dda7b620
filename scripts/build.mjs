// Builds hel, doing only what its changed inputs require, without ever leaving the installed `hel`
// (dist/bin/hel.cjs, which `npm install -g .` links to in this checkout) unable to start. Contract:
// - Nothing is done when no input was written since the last build started (see INPUTS). Else tsc
//   compiles src/ into dist/.tsc/ in build mode, which compiles only what changed; `--dev` also
//   compiles the tools and tests into out/.
// - rolldown bundles dist/.tsc/ into dist/.next/ only when the digest of its inputs differs from the
//   last bundle's (HEL_BUILD_FORCE=1 bundles anyway). Its chunks are named by their content, so
//   moving them into dist/bundle/ replaces no file a starting hel may read; then the fixed-name
//   entries are renamed over the old ones (an atomic replace), main.cjs, which names the chunks,
//   last; then the launcher in dist/bin/, only when it changed. Chunks of neither this bundle nor
//   the one before are removed (a hel started from that one may still load them); `--prune` keeps
//   only this bundle's, for a package.
// - dist/.built (and, with `--dev`, out/.built) takes the time the build started: the tests'
//   stale-build guard (test/helpers/build-is-current.ts) compares the sources against it.
// - One build at a time in a checkout (dist/.lock); a second waits for the first.
// - Quiet unless something fails; HEL_BUILD_VERBOSE=1 lists the bundle's files and sizes.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "dist");
const TSC_OUT = join(DIST, ".tsc");
const NEXT = join(DIST, ".next");
const BUNDLE = join(DIST, "bundle");
const MANIFEST = join(DIST, ".bundle.json");
// What dist/ holds; anything else is left from an older layout of the build.
const KEPT = new Set(["bin", "bundle", ".tsc", ".next", ".built", ".bundle.json", ".lock"]);
const LOCK = join(DIST, ".lock");
// Entries whose names do not change from one bundle to the next, in the order they are replaced.
const FIXED = ["search-worker.cjs", "mcp-connection.cjs", "view-page.js", "view-page.css", "main.cjs"];
const LAUNCHER = ["compile-cache.cjs", "hel.cjs"];

const dev = process.argv.includes("--dev");
const prune = process.argv.includes("--prune");
const verbose = Boolean(process.env.HEL_BUILD_VERBOSE);
const started = Date.now() / 1000;

function fail(message) {
  process.stderr.write(`hel build: ${message}\n`);
  process.exit(1);
}

function compile() {
  mkdirSync(DIST, { recursive: true });
  for (const name of readdirSync(DIST)) if (!KEPT.has(name)) rmSync(join(DIST, name), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const projects = dev ? ["tsconfig.json", "tsconfig.dev.json"] : ["tsconfig.json"];
  const run = spawnSync(process.execPath, [tsc, "-b", ...projects], { cwd: ROOT, stdio: "inherit" });
  if (run.status !== 0) fail(`tsc failed (${projects.join(", ")})`);
}

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith(".tsbuildinfo"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** A digest of everything the bundle is made from: tsc's output, the bundler's config, the dependencies. */
function inputDigest() {
  const hash = createHash("sha256");
  const inputs = [...filesUnder(TSC_OUT), ...filesUnder(join(ROOT, "build")), join(ROOT, "rolldown.config.mjs"), join(ROOT, "package-lock.json")];
  for (const file of inputs)
    hash
      .update(`${relative(ROOT, file)}\0`)
      .update(readFileSync(file))
      .update("\0");
  return hash.digest("hex");
}

function readManifest() {
  try {
    return JSON.parse(readFileSync(MANIFEST, "utf8"));
  } catch {
    return { digest: null, files: [], previous: [] };
  }
}

/** Writes a file beside its final place, then renames it there: a reader sees the old or the new file. */
function replaceFile(path, bytes, mode) {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, bytes, { mode });
  renameSync(temp, path);
}

async function bundle() {
  rmSync(NEXT, { recursive: true, force: true });
  const { build } = await import("rolldown");
  const configs = (await import(pathToFileURL(join(ROOT, "rolldown.config.mjs")).href)).default;
  const written = [];
  process.chdir(ROOT);
  for (const config of configs) {
    const { output } = await build(config);
    written.push(...output);
  }
  if (verbose) for (const file of written) process.stdout.write(`dist/bundle/${file.fileName}  ${((file.type === "chunk" ? file.code.length : file.source.length) / 1024).toFixed(1)} kB\n`);
  const files = readdirSync(NEXT).sort();
  for (const name of FIXED) if (!files.includes(name)) fail(`rolldown wrote no ${name}`);
  mkdirSync(BUNDLE, { recursive: true });
  for (const name of files) if (!FIXED.includes(name) && !existsSync(join(BUNDLE, name))) renameSync(join(NEXT, name), join(BUNDLE, name));
  for (const name of FIXED) renameSync(join(NEXT, name), join(BUNDLE, name));
  rmSync(NEXT, { recursive: true, force: true });
  return files;
}

/** Copies tsc's launcher into dist/bin/, file by file, only where it differs. */
function installLauncher() {
  const bin = join(DIST, "bin");
  mkdirSync(bin, { recursive: true });
  for (const name of LAUNCHER) {
    const built = readFileSync(join(TSC_OUT, "bin", name));
    const target = join(bin, name);
    if (existsSync(target) && readFileSync(target).equals(built) && (name !== "hel.cjs" || statSync(target).mode & 0o100)) continue;
    replaceFile(target, built, name === "hel.cjs" ? 0o755 : 0o644);
    // The executable bit is what `npm link` and `npx hel` run it by; writeFile's mode is subject to the umask.
    if (name === "hel.cjs") chmodSync(target, 0o755);
  }
}

/** Removes the bundle files that neither `keep` nor the previous bundle names. */
function removeOldChunks(keep) {
  for (const name of readdirSync(BUNDLE)) if (!keep.has(name)) rmSync(join(BUNDLE, name), { force: true });
}

function stamp(dir) {
  const path = join(dir, ".built");
  closeSync(openSync(path, "w"));
  utimesSync(path, started, started);
}

// What each build is made from, for the check that skips a build none of whose inputs changed
// (tsc's own check is the same, but loading tsc to make it takes longer than the rest of the run).
const INPUTS = {
  dist: ["src", "build", "rolldown.config.mjs", "tsconfig.json", "package-lock.json", "node_modules/.package-lock.json", "scripts/build.mjs"],
  out: ["src", "sim", "bench", "evals", "scripts", "test", "vitest.config.ts", "tsconfig.json", "tsconfig.dev.json"],
};

/** Whether `dir`'s last build started after every one of its inputs was last written. */
function upToDate(dir, inputs, outputs) {
  let builtAt;
  try {
    builtAt = statSync(join(ROOT, dir, ".built")).mtimeMs;
  } catch {
    return false;
  }
  if (!outputs.every((path) => existsSync(join(ROOT, path)))) return false;
  const newer = (path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return false;
    if (stat.mtimeMs > builtAt) return true;
    return stat.isDirectory() && readdirSync(path).some((name) => newer(join(path, name)));
  };
  return !inputs.some((path) => newer(join(ROOT, path)));
}

/**
 * Waits until no other build runs here, then holds dist/.lock (holding this process's id) until this
 * one exits: two builds at once would read each other's half-written files into the bundle.
 */
function lockBuilds() {
  mkdirSync(DIST, { recursive: true });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; ; waited++) {
    try {
      writeFileSync(LOCK, String(process.pid), { flag: "wx" });
      process.once("exit", () => rmSync(LOCK, { force: true }));
      return;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    let holder;
    try {
      holder = Number(readFileSync(LOCK, "utf8") || NaN);
    } catch {
      continue;
    }
    if (Number.isInteger(holder) && !alive(holder)) rmSync(LOCK, { force: true });
    else if (waited === 10) process.stderr.write(`hel build: waiting for the build running here (process ${holder})\n`);
    Atomics.wait(pause, 0, 0, 100);
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

const nothingToDo = () => !process.env.HEL_BUILD_FORCE && !prune && upToDate("dist", INPUTS.dist, ["dist/bin/hel.cjs", "dist/bundle/main.cjs"]) && (!dev || upToDate("out", INPUTS.out, ["out/evals/main.js"]));
if (nothingToDo()) process.exit(0);
lockBuilds();
// The build this one waited for may have done all there was to do.
if (nothingToDo()) process.exit(0);
compile();
const manifest = readManifest();
const digest = inputDigest();
const current = manifest.files.length > 0 && manifest.files.every((name) => existsSync(join(BUNDLE, name)));
let next = manifest;
if (process.env.HEL_BUILD_FORCE || manifest.digest !== digest || !current) {
  const files = await bundle();
  next = { digest, files, previous: manifest.files };
}
installLauncher();
removeOldChunks(new Set(prune ? next.files : [...next.files, ...next.previous]));
if (prune) next = { ...next, previous: [] };
if (next !== manifest) replaceFile(MANIFEST, `${JSON.stringify(next, null, 1)}\n`, 0o644);
stamp(DIST);
if (dev) stamp(join(ROOT, "out"));

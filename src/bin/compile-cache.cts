// Runs hel's bundled CommonJS chunks through a V8 code cache kept per user, so every run after the
// first skips parsing and compiling the bundle's JavaScript: on Node 20, which has no compile cache of
// its own, that was the largest part of hel's start-up. Contract:
// - A cache is used only for the exact file it was made from: its size, modification time and inode
//   are in the cache's first line (the way Python trusts a .pyc), and the directory is per Node
//   version and architecture. V8 itself rejects a cache made under other flags, and (under the flag
//   set below) one whose checksum does not match its data.
// - Anything else (no cache, a stale, damaged or rejected one) means compiling from source; the fresh
//   cache is written when the process exits, after the run has compiled what it uses, atomically
//   (temporary file, rename) so a concurrent hel never reads half of one.
// - The cache lives in the user's own cache directory (mode 700): V8 runs what it holds, so it must
//   not be somewhere another user can write. NODE_DISABLE_COMPILE_CACHE turns it off, as for Node's.
// - Failing to read or write the cache is never an error: hel runs the same, only slower.
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";

// Release builds of V8 check only a cache's version, flags and source length before running what it
// holds, so a cache damaged on disk would run. Under this flag V8 writes a checksum into every cache
// and rejects one that does not match: the check costs a fraction of a millisecond, where a digest
// of our own meant loading node:crypto on every start. Being a flag, it is also part of the
// flags V8 requires a cache to have been made with, so a cache made without it is never used.
setFlagsFromString("--verify-snapshot-checksum");

/** Where the caches of this Node version go, or null when caching is off or there is no home. */
export function cacheDirectory(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, home: string): string | null {
  if (env.NODE_DISABLE_COMPILE_CACHE) return null;
  let base: string | undefined;
  if (platform === "win32") base = env.LOCALAPPDATA || (home && join(home, "AppData", "Local"));
  else if (platform === "darwin") base = home && join(home, "Library", "Caches");
  else base = env.XDG_CACHE_HOME?.startsWith("/") ? env.XDG_CACHE_HOME : home && join(home, ".cache");
  return base ? join(base, "hel", `node-${process.version}-${process.arch}`) : null;
}

/** The identity of one version of a file: a cache file's first line. */
function fileKey(stat: { size: bigint; mtimeNs: bigint; ino: bigint }): string {
  return `hel-code-cache 2 ${stat.size} ${stat.mtimeNs} ${stat.ino}`;
}

/** A cache file: the key on the first line, then V8's data. */
function cacheFileBytes(key: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${key}\n`, "latin1"), data]);
}

/** The V8 data of a cache file made for `key`, or null. */
function cachedDataFor(file: Buffer, key: string): Buffer | null {
  const end = file.indexOf(0x0a);
  if (end === -1 || file.toString("latin1", 0, end) !== key) return null;
  return file.subarray(end + 1);
}

/**
 * The cache's file name for one bundle file: its name, after a hash of its directory, so two
 * installs of hel (a global one and a project's) keep separate caches instead of replacing each
 * other's on every run. A chunk's name carries a hash of its content (`run.<hash>.cjs`), which is
 * left out, so each rebuild's chunk replaces its predecessor's cache instead of adding one.
 */
export function cacheFileName(file: string): string {
  // FNV-1a: a name, not a secret, and no reason to load node:crypto for it.
  let hash = 0x811c9dc5;
  const dir = dirname(file);
  for (let i = 0; i < dir.length; i++) hash = Math.imul(hash ^ dir.charCodeAt(i), 0x01000193) >>> 0;
  return `${hash.toString(16).padStart(8, "0")}-${basename(file).replace(/\.[^.]+(?=\.cjs$)/, "")}.cache`;
}

interface Loaded {
  exports: unknown;
}

export class ChunkLoader {
  readonly #modules = new Map<string, Loaded>();
  readonly #unsaved: { script: Script; cacheFile: string; key: string }[] = [];
  /** The chunks this process compiled from source: no cache, or one that did not fit. */
  readonly compiled: string[] = [];

  constructor(private readonly cacheDir: string | null) {}

  /** Runs one chunk (once per process, like require) and returns its exports. */
  load(file: string): unknown {
    const known = this.#modules.get(file);
    if (known) return known.exports;
    const fd = openSync(file, "r");
    let source: string;
    let key: string;
    try {
      key = fileKey(fstatSync(fd, { bigint: true }));
      source = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
    const cacheFile = this.cacheDir ? join(this.cacheDir, cacheFileName(file)) : null;
    const cachedData = cacheFile ? readCache(cacheFile, key) : undefined;
    // The same wrapper as Node's CommonJS loader, on the first line so stack traces keep line numbers.
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source.replace(/^#!/, "//")}\n})`, {
      filename: file,
      ...(cachedData ? { cachedData } : {}),
    });
    if (!cachedData || script.cachedDataRejected) {
      this.compiled.push(file);
      if (cacheFile) this.#unsaved.push({ script, cacheFile, key });
    }
    const module: Loaded = { exports: {} };
    this.#modules.set(file, module);
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, this.#requireFor(file), module, file, dirname(file));
    return module.exports;
  }

  /** Writes the caches of chunks that had none; call once, as the process exits. */
  save(): void {
    if (this.#unsaved.length === 0 || !this.cacheDir) return;
    try {
      mkdirSync(this.cacheDir, { recursive: true, mode: 0o700 });
    } catch {
      return;
    }
    for (const { script, cacheFile, key } of this.#unsaved.splice(0)) {
      const temp = `${cacheFile}.${process.pid}.tmp`;
      try {
        writeFileSync(temp, cacheFileBytes(key, script.createCachedData()), { mode: 0o600 });
        renameSync(temp, cacheFile);
      } catch {
        rmSync(temp, { force: true });
      }
    }
  }

  // Chunks import each other as `require("./name.cjs")`; those load through this loader (and its
  // cache), everything else (Node's built-ins) through Node's own require.
  #requireFor(file: string): NodeJS.Require {
    const nodeRequire = createRequire(file);
    const chunkRequire = (id: string): unknown => (id.startsWith("./") && id.endsWith(".cjs") ? this.load(resolve(dirname(file), id)) : nodeRequire(id));
    return Object.assign(chunkRequire, { resolve: nodeRequire.resolve, cache: nodeRequire.cache, extensions: nodeRequire.extensions, main: nodeRequire.main });
  }
}

function readCache(cacheFile: string, key: string): Buffer | undefined {
  try {
    return cachedDataFor(readFileSync(cacheFile), key) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The loader hel's launcher uses: caching in the user's cache directory, saved at exit. */
export function processChunkLoader(): ChunkLoader {
  const loader = new ChunkLoader(cacheDirectory(process.env, process.platform, homedir()));
  process.once("exit", () => loader.save());
  return loader;
}

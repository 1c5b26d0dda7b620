// Bundles the compiled CLI (dist/.tsc/cli/main.js, tsc's output) and its dependencies into CommonJS
// chunks in dist/.next/, which scripts/build.mjs moves into dist/bundle/, where dist/bin/hel.cjs runs
// them through a V8 code cache (src/bin/compile-cache.cts):
// hel starts faster from a few files than from ~300 modules, and faster still when V8 need not
// compile them again. Contract of the output:
// - CommonJS, because Node 20 can cache compiled code only for scripts (vm.Script), not for ES modules.
// - The modules `hel sessions` and a run load on demand stay separate chunks, so `hel --version`
//   loads neither. Chunks are named by their content, so a new bundle can be moved in beside the
//   old one; the entries (main, search-worker) keep their names.
// - ASCII only and without comments: V8 keeps a source with any other character as two bytes per
//   character, and the source must be read and kept whole even when the cache is used.
// - undici is its slim entry (build/undici-slim.cjs): an Agent and its request API, without fetch.
//   The SDK's global `Headers` is hel's class (src/model/http-headers.ts), so Node's own copy of
//   undici is never loaded, and the SDK is told there is no global ReadableStream (see `define`).
// - Built-in modules that dependencies load at start-up for paths hel never or rarely takes are
//   left out or loaded on first use (see DEFERRED_BUILTINS): loading them slowed every run.
import { readFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { defineConfig } from "rolldown";

const undiciSlim = fileURLToPath(new URL("./build/undici-slim.cjs", import.meta.url));
const httpHeaders = fileURLToPath(new URL("./dist/.tsc/model/http-headers.js", import.meta.url));
// hel's own modules, as tsc wrote them.
const helModule = new RegExp(`^${fileURLToPath(new URL("./dist/.tsc/", import.meta.url)).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}.*\\.js$`);

// A module that loads the built-in one on first use: for imports that are only used inside
// functions hel rarely or never calls.
const onFirstUse = (builtin) => `let m; module.exports = new Proxy({}, { get: (_, key) => (m ??= require(${JSON.stringify(builtin)}))[key] });`;
const undiciFile = (path) => new RegExp(`[\\\\/]undici[\\\\/]lib[\\\\/]${path.replaceAll("/", "[\\\\/]").replaceAll(".", "\\.")}$`);

// Which importer gets what instead of a built-in module.
const DEFERRED_BUILTINS = [
  {
    // undici's HTTP/2 client. hel's Agent leaves allowH2 off, so a connection only ever offers
    // HTTP/1.1; this is the value undici itself falls back to on a Node built without http2.
    builtin: "node:http2",
    importers: [undiciFile("dispatcher/client-h2.js")],
    code: "module.exports = { constants: {} };",
  },
  {
    // hel's own uses of crypto (ids and unique file names) all come after the first answer; the
    // static imports would load it before the first request.
    builtin: "node:crypto",
    importers: [helModule],
    code: onFirstUse("node:crypto"),
  },
  {
    // hel checksums a snapshot's messages with zlib's crc32, only when it saves or resumes a session.
    builtin: "node:zlib",
    importers: [helModule],
    code: onFirstUse("node:zlib"),
  },
  {
    // commander spawns processes only for executable subcommands, which hel has none of.
    builtin: "node:child_process",
    importers: [/[\\/]commander[\\/]lib[\\/]command\.js$/],
    code: onFirstUse("node:child_process"),
  },
  {
    // hel starts a process only when the model runs a command.
    builtin: "node:child_process",
    importers: [helModule],
    code: onFirstUse("node:child_process"),
  },
];

// The MCP client (dist/.tsc/mcp/connection.js and the SDK under it) is built apart, as mcp-connection.cjs,
// and loaded only by a run with a server to start: sharing chunks with it would split the modules
// both use (zod, the Headers class) out of hel's own chunks, so every run would load more files.
const MCP_CONNECTION = fileURLToPath(new URL("./dist/.tsc/mcp/connection.js", import.meta.url));
const mcpApart = {
  name: "hel-mcp-apart",
  resolveId(id, importer) {
    if (id === "./mcp-connection.cjs") return { id, external: true };
    return id === "./connection.js" && importer && fileURLToPath(new URL("./connection.js", `file://${importer}`)) === MCP_CONNECTION ? "\0hel-mcp-connection" : null;
  },
  // A chunk's import() cannot run (chunks run as scripts): the module that stands for it requires the file.
  load(id) {
    return id === "\0hel-mcp-connection" ? { code: 'module.exports = require("./mcp-connection.cjs");', moduleType: "js" } : null;
  },
};

// The session page's script (build/view-page.js) runs in a browser: one script with uPlot in it, and
// uPlot's styles beside it as view-page.css; the page carries both inline (src/view/page-assets.ts).
const uplotStyles = {
  name: "hel-uplot-styles",
  generateBundle() {
    const css = createRequire(import.meta.url).resolve("uplot/dist/uPlot.min.css");
    this.emitFile({ type: "asset", fileName: "view-page.css", source: readFileSync(css, "utf8") });
  },
};

const deferBuiltins = {
  name: "hel-deferred-builtins",
  resolveId(id, importer) {
    const i = DEFERRED_BUILTINS.findIndex((d) => d.builtin === id && importer && d.importers.some((re) => re.test(importer)));
    return i === -1 ? null : `\0hel-deferred-builtin:${i}`;
  },
  // The compile cache runs chunks as scripts, where import() has no loader to call: a dynamic
  // import of a built-in module would fail only when it runs, so it fails the build instead.
  // pkce-challenge (the MCP SDK's OAuth) has one, reached only on a Node before 18, where there is no
  // global crypto: on the Node hel runs on it is never reached.
  resolveDynamicImport(specifier, importer) {
    if (importer && /[\\/]pkce-challenge[\\/]/.test(importer)) return null;
    if (typeof specifier === "string" && (specifier.startsWith("node:") || builtinModules.includes(specifier))) {
      this.error(`import("${specifier}") cannot run in hel's bundle (chunks run as scripts); import the module statically`);
    }
    return null;
  },
  load(id) {
    return id.startsWith("\0hel-deferred-builtin:") ? { code: DEFERRED_BUILTINS[Number(id.split(":")[1])].code, moduleType: "js" } : null;
  },
};

const output = {
  dir: "dist/.next",
  format: "cjs",
  entryFileNames: "[name].cjs",
  chunkFileNames: "[name].[hash].cjs",
  charset: "ascii",
  comments: false,
  minify: false,
};

export default defineConfig([
  {
    input: { main: "dist/.tsc/cli/main.js" },
    platform: "node",
    plugins: [deferBuiltins, mcpApart],
    resolve: { alias: { undici: undiciSlim } },
    transform: {
      inject: { Headers: [httpHeaders, "HttpHeaders"] },
      // The SDK checks every request body for a web ReadableStream. hel sends bytes and reads answers
      // as async iterables, so those paths are never taken, and looking up the global would load
      // Node's web streams at every start-up.
      define: { "globalThis.ReadableStream": "undefined" },
    },
    output: { ...output, cleanDir: true },
  },
  {
    // grep and find_files run in a worker thread, which loads its script as a file of its own: one file,
    // built apart, so that hel's own chunks stay as they are (sharing chunks with it would make
    // `hel --version` load more of them).
    input: { "search-worker": "dist/.tsc/tools/search/search-worker.js" },
    platform: "node",
    output,
  },
  {
    input: { "mcp-connection": MCP_CONNECTION },
    platform: "node",
    output,
  },
  {
    input: { "view-page": "build/view-page.js" },
    platform: "browser",
    plugins: [uplotStyles],
    output: { dir: "dist/.next", format: "iife", entryFileNames: "[name].js", charset: "ascii", comments: false, minify: true },
  },
]);

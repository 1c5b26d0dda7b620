// What the built hel loads before its first request. Each built-in below is needed only later or
// only on some paths, and loading it cost measurable start-up (see rolldown.config.mjs and
// docs/measured.md); this catches one creeping back onto the way to the first request.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => sim?.close());

const PRELOAD = join(import.meta.dirname, "..", "helpers", "first-connect-modules.cjs");

it("reaches its first request without the built-ins it needs only later or never", async () => {
  sim = await startSimulator({ script: [{ content: "ok" }] });
  const project = await tempProject();
  const file = join(project, "modules.txt");
  const run = await runHel({ args: ["-C", project, "hi"], baseUrl: sim.url, env: { NODE_OPTIONS: `--require ${PRELOAD}`, HEL_TEST_MODULES_FILE: file } });
  expect(run.code).toBe(0);
  const loaded = new Set((await readFile(file, "utf8")).split("\n"));
  // The hook fired where it should: the bundle and undici's client were loaded.
  expect(loaded.has("NativeModule http")).toBe(true);
  const early = [
    "NativeModule crypto", // session ids and file names, first needed at the first save or spill
    "NativeModule readline", // stdin and interactive modes only
    "NativeModule zlib", // a compressed answer only
    "NativeModule http2", // never: the Agent speaks HTTP/1.1
    "NativeModule child_process", // never: no executable subcommands
    "NativeModule perf_hooks", // the `performance` global
    "NativeModule internal/webstreams/readablestream", // the global ReadableStream
  ].filter((name) => loaded.has(name));
  expect(early).toEqual([]);
  // Nor, with no MCP server configured, the MCP client and its SDK (built apart, rolldown.config.mjs).
  // (The run's chunk, named by its content, shows the chunks opened are seen at all.)
  expect([...loaded].some((line) => /^chunk run\.[\w-]+\.cjs$/.test(line))).toBe(true);
  expect([...loaded].filter((line) => line.includes("mcp-connection"))).toEqual([]);
});

// What the built hel loads before its first request. Each built-in below is needed only later or
// only on some paths, and loading it cost measurable start-up (see rolldown.config.mjs and
// docs/measured.md); this catches one creeping back onto the way to the first request.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { runHel } from "../helpers/hel.js";
import { memoFile } from "../../src/fs/file-memo.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => sim?.close());

const PRELOAD = join(import.meta.dirname, "..", "helpers", "first-request-modules.cjs");

const EARLY = [
  "NativeModule crypto", // session ids and file names, first needed at the first save or spill
  "NativeModule readline", // stdin and interactive modes only
  "NativeModule zlib", // a compressed answer only
  "NativeModule http2", // never: the Agent speaks HTTP/1.1
  "NativeModule child_process", // never: no executable subcommands
  "NativeModule perf_hooks", // the `performance` global
  "NativeModule internal/webstreams/readablestream", // the global ReadableStream
];

/** What `hel -C <project> hi` had loaded when it sent its first request. */
async function loadedBy(project: string): Promise<Set<string>> {
  const file = join(project, "modules.txt");
  const run = await runHel({ args: ["-C", project, "hi"], baseUrl: sim!.url, env: { NODE_OPTIONS: `--require ${PRELOAD}`, HEL_TEST_MODULES_FILE: file } });
  expect(run.code).toBe(0);
  const loaded = new Set((await readFile(file, "utf8")).split("\n"));
  // The hook fired where it should: the bundle and undici's client were loaded.
  expect(loaded.has("NativeModule http")).toBe(true);
  return loaded;
}

it("reaches its first request without the built-ins it needs only later or never", async () => {
  sim = await startSimulator({ policy: "echo" });
  const loaded = await loadedBy(await tempProject());
  expect(EARLY.filter((name) => loaded.has(name))).toEqual([]);
  // Nor, with no MCP server configured, the MCP client and its SDK (built apart, rolldown.config.mjs).
  // (The run's chunk, named by its content, shows the chunks opened are seen at all.)
  expect([...loaded].some((line) => /^chunk run\.[\w-]+\.cjs$/.test(line))).toBe(true);
  expect([...loaded].filter((line) => line.includes("mcp-connection"))).toEqual([]);
});

it("nor with agent and skill files, read or taken from the memo of them", async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  await mkdir(join(project, ".hel", "agents"), { recursive: true });
  await writeFile(join(project, ".hel", "agents", "review.md"), "---\ndescription: Reviews the diff\n---\nLook closely.\n");
  await mkdir(join(project, ".hel", "skills", "deploy"), { recursive: true });
  await writeFile(join(project, ".hel", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Ship it.\n---\n");
  // Settled, so that the first start keeps them (fs/file-memo.ts) and the second takes them from the memo.
  await sleep(2100);
  for (let run = 0; run < 2; run++) {
    const loaded = await loadedBy(project);
    expect(EARLY.filter((name) => loaded.has(name))).toEqual([]);
  }
  for (const name of ["agents", "skills"]) expect((await stat(memoFile(project, name))).isFile()).toBe(true);
});

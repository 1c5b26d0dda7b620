// The package as npm would publish it: named so `npm install -g` finds hel (the registry's `hel` is
// another library), with the `hel` command, and holding everything that command needs: a copy of just
// the files `npm pack` lists, with no node_modules beside it, starts, runs a task and exports its session as a page.
import { spawn, spawnSync } from "node:child_process";
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { collect, helEnv, ROOT } from "../helpers/hel.js";
import { sessionIdOf } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => sim?.close());

it("is hel-agent, whose packed files alone run the hel command", async () => {
  const manifest = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { name: string; version: string; bin: Record<string, string> };
  expect(manifest.name).toBe("hel-agent");
  expect(manifest.bin).toEqual({ hel: "dist/bin/hel.cjs" });

  const pack = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" });
  expect(pack.status).toBe(0);
  const files = (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  expect(files).toContain("dist/bin/hel.cjs");
  expect(files).toContain("dist/bundle/main.cjs");
  // The README's links lead into docs/, which goes along.
  expect(files).toContain("docs/usage.md");
  expect(files.filter((path) => !/^(dist\/(bin|bundle)\/[^/]+\.cjs|dist\/bundle\/view-page\.(js|css)|docs\/[^/]+\.(md|png)|package\.json|README\.md|LICENSE)$/.test(path))).toEqual([]);

  const installed = await tempProject();
  for (const path of files) await cp(join(ROOT, path), join(installed, path));
  const bin = join(installed, manifest.bin.hel!);
  const env = helEnv(undefined, { NODE_DISABLE_COMPILE_CACHE: "1" });
  const version = await collect(spawn(process.execPath, [bin, "--version"], { env }));
  expect(version.stdout).toBe(`${manifest.version}\n`);

  sim = await startSimulator({});
  const project = await tempProject();
  const run = await collect(spawn(process.execPath, [bin, "-C", project, "hi"], { env: { ...env, HEL_BASE_URL: sim.url } }));
  expect(run.stdout).toBe("echo: hi\n");
  expect(run.code).toBe(0);

  // The session page's script and styles go along, found beside the bundle.
  const id = sessionIdOf(run.stderr)!;
  const page = await collect(spawn(process.execPath, [bin, "-C", project, "sessions", "export", id], { env }));
  expect(page.code).toBe(0);
  expect(page.stdout).toContain('<figure id="request-chart"');
  expect(page.stdout).toContain(".u-legend");
});

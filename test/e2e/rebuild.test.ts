// scripts/build.mjs on this checkout: a build with nothing changed leaves the bundle as it was and
// prints nothing, and a rebuild never leaves the installed `hel` (the same dist/bin/hel.cjs a global
// `npm install -g .` links to) unable to start, not even for one run started halfway through.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { staleBuild } from "../helpers/build-is-current.js";
import { collect, HEL, ROOT } from "../helpers/hel.js";

const BUILD = join(ROOT, "scripts", "build.mjs");
const MAIN = join(ROOT, "dist", "bundle", "main.cjs");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const quiet = { ...process.env, HEL_BUILD_VERBOSE: undefined, HEL_BUILD_FORCE: undefined };

it("leaves a bundle whose inputs did not change as it was, and says nothing", () => {
  const before = statSync(MAIN, { bigint: true }).ino;
  const build = () => spawnSync(process.execPath, [BUILD, "--dev"], { cwd: ROOT, env: quiet, encoding: "utf8" });
  // Nothing written since the last build; then a source written again as it was (tsc runs, rolldown not).
  for (const prepare of [() => undefined, () => utimesSync(join(ROOT, "src", "clock.ts"), new Date(), new Date())]) {
    prepare();
    const built = build();
    expect(built.status).toBe(0);
    expect(built.stdout + built.stderr).toBe("");
    expect(statSync(MAIN, { bigint: true }).ino).toBe(before);
    expect(staleBuild(ROOT)).toBeNull();
  }
});

it("keeps the built hel starting while a rebuild replaces the bundle", async () => {
  const before = statSync(MAIN, { bigint: true }).ino;
  const build = collect(spawn(process.execPath, [BUILD, "--dev"], { cwd: ROOT, env: { ...quiet, HEL_BUILD_FORCE: "1" } }));
  let finished = false;
  void build.then(() => (finished = true));
  const runs: { code: number | null; stdout: string; stderr: string }[] = [];
  while (!finished) runs.push(await collect(spawn(process.execPath, [HEL, "--version"], { cwd: ROOT })));
  const built = await build;
  expect(built.code).toBe(0);
  expect(built.stdout).toBe("");
  // The bundle was replaced (a new main.cjs), and hel was started over and over while it was.
  expect(statSync(MAIN, { bigint: true }).ino).not.toBe(before);
  expect(runs.length).toBeGreaterThan(2);
  expect(runs.filter((run) => run.code !== 0 || run.stdout !== `${VERSION}\n`)).toEqual([]);
  expect(staleBuild(ROOT)).toBeNull();
});

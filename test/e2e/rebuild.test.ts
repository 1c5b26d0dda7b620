// scripts/build.mjs on a copy of this checkout (so the tests running beside it keep their bundle): a
// build with nothing changed leaves the bundle as it was and prints nothing, a rebuild never leaves
// the built `hel` (the file a global `npm install -g .` links to) unable to start, not even for one
// run started halfway through, and two builds never run at once.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { BUILDS, staleBuild } from "../helpers/build-is-current.js";
import { collect, ROOT } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const COPIED = ["src", "build", "scripts", "dist", "rolldown.config.mjs", "tsconfig.json", "package.json", "package-lock.json"];
const quiet = { ...process.env, HEL_BUILD_VERBOSE: undefined, HEL_BUILD_FORCE: undefined };

let copy: string;
let main: string;
// The copy has no out/: only the package's build is checked there.
const DIST = BUILDS.filter((build) => build.stamp === "dist/.built");

beforeAll(async () => {
  copy = await tempProject();
  // `cp -a` keeps the modification times, which are what makes the copy's build as current as this one.
  expect(spawnSync("cp", ["-a", ...COPIED.map((path) => join(ROOT, path)), copy]).status).toBe(0);
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
  main = join(copy, "dist", "bundle", "main.cjs");
});

it("leaves a bundle whose inputs did not change as it was, and says nothing", () => {
  const before = statSync(main, { bigint: true }).ino;
  // Nothing written since the last build; then a source written again as it was (tsc runs, rolldown not).
  for (const prepare of [() => undefined, () => utimesSync(join(copy, "src", "clock.ts"), new Date(), new Date())]) {
    prepare();
    const built = spawnSync(process.execPath, [join(copy, "scripts", "build.mjs")], { cwd: copy, env: quiet, encoding: "utf8" });
    expect(built.stdout + built.stderr).toBe("");
    expect(built.status).toBe(0);
    expect(statSync(main, { bigint: true }).ino).toBe(before);
    expect(staleBuild(copy, DIST)).toBeNull();
  }
});

it("keeps the built hel starting while a rebuild replaces the bundle", async () => {
  const before = statSync(main, { bigint: true }).ino;
  const build = collect(spawn(process.execPath, [join(copy, "scripts", "build.mjs")], { cwd: copy, env: { ...quiet, HEL_BUILD_FORCE: "1" } }));
  let finished = false;
  void build.then(() => (finished = true));
  const env = { ...process.env, XDG_CACHE_HOME: await tempProject() };
  const runs: { code: number | null; stdout: string; stderr: string }[] = [];
  while (!finished) runs.push(await collect(spawn(process.execPath, [join(copy, "dist", "bin", "hel.cjs"), "--version"], { cwd: copy, env })));
  const built = await build;
  expect(built.stdout + built.stderr).toBe("");
  expect(built.code).toBe(0);
  // The bundle was replaced (a new main.cjs), and hel was started over and over while it was.
  expect(statSync(main, { bigint: true }).ino).not.toBe(before);
  expect(runs.length).toBeGreaterThan(2);
  expect(runs.filter((run) => run.code !== 0 || run.stdout !== `${VERSION}\n`)).toEqual([]);
  expect(staleBuild(copy, DIST)).toBeNull();
});

it("waits while another build holds the checkout, and takes over the lock of one that died", async () => {
  const lock = join(copy, "dist", ".lock");
  const stamp = join(copy, "dist", ".built");
  writeFileSync(lock, String(process.pid));
  utimesSync(join(copy, "src", "clock.ts"), new Date(), new Date());
  const builtBefore = statSync(stamp).mtimeMs;
  const child = spawn(process.execPath, [join(copy, "scripts", "build.mjs")], { cwd: copy, env: quiet });
  const build = collect(child);
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  await waitFor(
    () => stderr.includes(`hel build: waiting for the build running here (process ${process.pid})\n`),
    () => `the waiting line, in ${JSON.stringify(stderr)}`,
  );
  expect(statSync(stamp).mtimeMs).toBe(builtBefore);
  // The holder dies without removing its lock: a process that has exited.
  const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
  writeFileSync(lock, gone);
  const built = await build;
  expect(built.code).toBe(0);
  expect(existsSync(lock)).toBe(false);
  expect(statSync(stamp).mtimeMs).toBeGreaterThan(builtBefore);
});

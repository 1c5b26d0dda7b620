// The one temporary directory of the tests: a fresh directory (a copy of a fixture project, if asked)
// under the system's temp directory, given as its real path, removed when the test file is done.
import { cp, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll } from "vitest";

const FIXTURES = resolve(import.meta.dirname, "../../fixtures");
const created: string[] = [];

// Registered once in each test file that imports this module: its directories go when the file ends.
afterAll(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh directory, or a fresh copy of fixtures/<fixture>; the real path, since macOS reaches tmp through a symlink. */
export async function tempProject(fixture?: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "hel-test-")));
  created.push(dir);
  if (fixture) await cp(join(FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

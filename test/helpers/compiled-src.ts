// Child processes cannot import TypeScript (Node 20 has no type stripping and tsx is not installed),
// so tests that need a second real process load hel's modules as tsc compiled them for the bundle:
// dist/.tsc/, which the tests' global set-up (build-is-current.ts) has checked is no older than
// src/. Inside the repository, so the compiled files resolve proper-lockfile and zod from its
// node_modules.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");

/** The folder of the compiled src/ (session/lease.js and the rest), for a child process to import from. */
export function compiledSrc(): string {
  const out = join(root, "dist/.tsc");
  if (!existsSync(join(out, "session/lease.js"))) throw new Error(`${out} holds no compiled src/session — run npm run build:dev`);
  return out;
}

// A snapshot's signature vouches for exactly the file hel wrote, for that session of that project,
// under this user's key: the same bytes anywhere else, or changed by one byte, or signed with another
// user's key, are not hel's own.
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { sessionPaths } from "../../src/session/paths.js";
import { signedByHel } from "../../src/session/signature.js";
import { saveSnapshot } from "../../src/session/snapshot-file.js";
import { ID_A, ID_B, makeSnapshot } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";

it("holds for the file as saved, and for nothing else", async () => {
  const project = await tempProject();
  await saveSnapshot(project, makeSnapshot(project, ID_A));
  const bytes = await readFile(sessionPaths(project, ID_A).snapshot);
  expect(await signedByHel(project, ID_A, bytes)).toBe(true);
  // Copied into another project, or renamed into another session, the same bytes do not verify.
  expect(await signedByHel(await tempProject(), ID_A, bytes)).toBe(false);
  expect(await signedByHel(project, ID_B, bytes)).toBe(false);
  // One byte of a message changed, or of the MAC itself.
  const text = bytes.toString();
  expect(await signedByHel(project, ID_A, Buffer.from(text.replace("What does a.ts", "What does b.ts")))).toBe(false);
  const mac = /"mac":"([0-9a-f]{64})"/.exec(text)![1]!;
  const flipped = `${mac.slice(0, -1)}${mac.endsWith("0") ? "1" : "0"}`;
  expect(await signedByHel(project, ID_A, Buffer.from(text.replace(mac, flipped)))).toBe(false);
  // No MAC at all (an older hel), or the zeros of one never signed.
  expect(await signedByHel(project, ID_A, Buffer.from(text.replace(`,"mac":"${mac}"`, "")))).toBe(false);
  expect(await signedByHel(project, ID_A, Buffer.from(text.replace(mac, "0".repeat(64))))).toBe(false);
});

it("another user's key at the same path does not verify", async () => {
  const project = await tempProject();
  const mine = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = await mkdtemp(join(tmpdir(), "hel-other-state-"));
  try {
    await saveSnapshot(project, makeSnapshot(project, ID_A));
    expect(await signedByHel(project, ID_A, await readFile(sessionPaths(project, ID_A).snapshot))).toBe(true);
  } finally {
    process.env.XDG_STATE_HOME = mine;
  }
  expect(await signedByHel(project, ID_A, await readFile(sessionPaths(project, ID_A).snapshot))).toBe(false);
});

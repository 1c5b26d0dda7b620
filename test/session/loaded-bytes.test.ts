// The store reuses the memory a load read into once nothing holds the bytes: not the messages kept as
// those bytes, nor a save's pieces written from them uncopied, which may outlive the messages (a save
// still writing after compaction dropped them). Run in a child process, which can start the
// collector (--expose-gc).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { saveSnapshot } from "../../src/session/snapshot-file.js";
import { compiledSrc } from "../helpers/compiled-src.js";
import { ID_A, ID_B, makeSnapshot } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";

it("a save's views of loaded bytes are not overwritten by the next load once the loaded messages are gone", async () => {
  const modules = compiledSrc();
  const project = await tempProject();
  await saveSnapshot(project, makeSnapshot(project, ID_A));
  // The second session is the smaller: it fits in the first one's buffer, were that buffer reused.
  await saveSnapshot(project, makeSnapshot(project, ID_B, { messages: [{ role: "system", content: "s" }] }));
  const helper = join(import.meta.dirname, "../helpers/loaded-bytes-child.mjs");
  const out = execFileSync(process.execPath, ["--expose-gc", helper, modules, project, ID_A, ID_B], { encoding: "utf8" });
  // Header, the history as one view of the loaded bytes, the end.
  expect(JSON.parse(out)).toEqual({ pieces: 3, intact: true });
});

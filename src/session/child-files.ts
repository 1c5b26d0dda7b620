// A session's children's transcripts (children/<n>.json), read in number order for the views of a
// saved session (`hel sessions show`, export), each with the SHA-256 of its bytes, which the signed
// snapshot vouches for. Nothing is read through a link; a damaged transcript is a usage error.
import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ChildTranscriptSchema, type ChildTranscript } from "../agent/children/child-transcript.js";
import { HelError } from "../errors.js";
import { ownDir } from "../fs/own-dir.js";
import { readRegularFile } from "../fs/regular-file.js";
import { sessionPaths } from "./paths.js";

/** A transcript is a child's conversation, as a snapshot is the parent's: bounded all the same. */
const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

export async function loadChildren(projectDir: string, id: string): Promise<{ transcript: ChildTranscript; sha256: string }[]> {
  const dir = sessionPaths(projectDir, id).children;
  const real = await ownDir(projectDir, dir, false).catch((e: Error) => {
    throw new HelError(`${e.message} to show the rest of the session`, 2);
  });
  const names = real ? await readdir(dir) : [];
  const numbered = names.filter((name) => /^\d+\.json$/.test(name)).sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
  return Promise.all(
    numbered.map(async (name) => {
      const file = join(dir, name);
      let parsed: ReturnType<typeof ChildTranscriptSchema.safeParse> | undefined;
      let text = "";
      try {
        text = await readRegularFile(file, MAX_TRANSCRIPT_BYTES, false);
        parsed = ChildTranscriptSchema.safeParse(JSON.parse(text));
      } catch {
        // Not JSON: reported below like any other broken transcript.
      }
      if (!parsed?.success) throw new HelError(`the subagent transcript ${file} is damaged — delete it to show the rest of the session`, 2);
      return { transcript: parsed.data, sha256: createHash("sha256").update(text).digest("hex") };
    }),
  );
}

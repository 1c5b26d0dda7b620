// Candidates for memory from a fold note (design §6, §10): its `learned` and `decided` parts, which
// say what an episode established and chose, are what a later session would otherwise find out again.
// Both the model's folds and hel's auto-folds write the note as `noteText` does (one `key: value`
// part per field), so one reader serves both. Pure.
import { FACT_MAX_CHARS } from "./fact.js";

const PARTS = ["changed", "learned", "decided", "open"] as const;
// Nothing worth keeping: what a note says when a part is empty.
const EMPTY = /^(-|none|nothing|n\/a)\.?$/i;

/** The `learned` and `decided` parts of a fold note, each one candidate within the length of a fact. */
export function noteCandidates(note: string): string[] {
  const parts = new Map<string, string>();
  const heads = [...note.matchAll(new RegExp(`^(${PARTS.join("|")}): `, "gm"))];
  heads.forEach((head, i) => {
    const end = heads[i + 1]?.index ?? note.length;
    parts.set(head[1]!, note.slice(head.index! + head[0].length, end).trim());
  });
  return ["learned", "decided"]
    .map((key) => parts.get(key) ?? "")
    .filter((text) => text !== "" && !EMPTY.test(text))
    .map(withinFact);
}

/** Text cut to a fact's length, at the end of a sentence where one falls late enough. */
function withinFact(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ");
  if (flat.length <= FACT_MAX_CHARS) return flat;
  const head = flat.slice(0, FACT_MAX_CHARS - 1);
  const stop = Math.max(head.lastIndexOf(". "), head.lastIndexOf("; "));
  return stop > FACT_MAX_CHARS / 2 ? head.slice(0, stop + 1) : `${head.trimEnd()}…`;
}

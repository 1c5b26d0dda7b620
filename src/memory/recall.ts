// Recall: the facts that bear on an instruction, ranked by BM25 (MiniSearch's BM25+, over each fact's
// text), the best few within a token budget, chosen for the one `[memory]` block (agent/memory-block.ts)
// that is appended to the instruction's user message. Pure: from the facts and the instruction to the chosen facts.
import MiniSearch from "minisearch";
import { estimateTokens } from "../agent/meter.js";
import type { Fact } from "./fact.js";

/** At most this many facts are recalled for one instruction. */
const RECALL_MAX_FACTS = 5;
/** The recalled facts' text, together, stays within this many tokens. */
const RECALL_MAX_TOKENS = 400;
/**
 * A fact scoring under this share of the best one matched only a word or two of little weight: left
 * out, so that the block holds what bears on the instruction rather than five of anything.
 */
const RELATIVE_FLOOR = 0.5;

// Words that say nothing of a subject: without them an instruction's "how do I" matches every fact
// written as a sentence.
const STOP_WORDS = new Set(
  (
    "a an and are as at be but by can could did do does for from had has have how i if in into is it its may me might must my no not of on or our " +
    "should so than that the their them then there these they this those to too us was we were what when where which while who why will with would you your"
  ).split(" "),
);

interface Ranked {
  fact: Fact;
  score: number;
}

/** The facts that share a word with the query, best first (ties: the older fact first). */
function rankFacts(facts: readonly Fact[], query: string): Ranked[] {
  const index = new MiniSearch<Fact>({
    fields: ["text"],
    processTerm: (term) => {
      const word = term.toLowerCase();
      return word.length < 2 || STOP_WORDS.has(word) ? null : word;
    },
  });
  index.addAll(facts);
  const byId = new Map(facts.map((f, at) => [f.id, { fact: f, at }]));
  return index
    .search(query, { prefix: (term) => term.length >= 4, combineWith: "OR" })
    .map((hit) => ({ ...byId.get(hit.id as string)!, score: hit.score }))
    .sort((a, b) => b.score - a.score || a.at - b.at)
    .map(({ fact, score }) => ({ fact, score }));
}

/** The best facts for `query`: at most RECALL_MAX_FACTS, within RECALL_MAX_TOKENS, none far below the best. */
export function recallFacts(facts: readonly Fact[], query: string): Fact[] {
  const ranked = rankFacts(facts, query);
  const floor = (ranked[0]?.score ?? 0) * RELATIVE_FLOOR;
  const chosen: Fact[] = [];
  let tokens = 0;
  for (const { fact, score } of ranked) {
    if (chosen.length === RECALL_MAX_FACTS || score < floor) break;
    const cost = estimateTokens(fact.text);
    if (tokens + cost > RECALL_MAX_TOKENS) continue;
    chosen.push(fact);
    tokens += cost;
  }
  return chosen;
}

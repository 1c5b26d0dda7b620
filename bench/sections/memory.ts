// The memory section: recall of facts planted over three sessions, for questions that need them.
import { measureMemory } from "../memory.js";
import { fmt } from "../stats.js";
import type { BenchSection } from "./section.js";

export const memorySection: BenchSection = {
  name: "memory",
  title: "15. Memory across sessions: recall of planted facts",
  async run() {
    const m = await measureMemory();
    return {
      title: `15. Memory across sessions: ${m.facts} facts planted over three sessions, ${m.questions} questions that need one or two of them`,
      rows: [
        { key: "memory.recall_at_5", label: "recall@5: needed facts in the [memory] block", value: m.recallAt5 * 100, unit: "%", target: { kind: "atLeast", limit: 80, unit: "%" } },
        { key: "memory.precision", label: "precision: facts in the block that were needed", value: m.precision * 100, unit: "%", note: `${m.empty} of ${m.questions} blocks empty` },
        {
          key: "memory.tokens_per_request",
          label: "tokens the block adds to a request",
          value: m.tokensPerRequest,
          unit: "tokens",
          target: { kind: "under", limit: 400, unit: "tokens" },
          note: `mean; at most ${fmt(m.maxTokens, 0)}`,
          extra: { max: m.maxTokens },
        },
      ],
      footnotes: [
        "Facts written by three MemoryStore instances in turn (a session each), read back from disk; recall as a conversation makes it:",
        "the recallable facts ranked by BM25 (MiniSearch), the best five within 400 tokens; tokens counted by the simulator's tokenizer.",
      ],
    };
  },
};

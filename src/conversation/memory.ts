// The conversation's memory (design §19). Before each instruction, the facts that bear on it are
// recalled (memory/recall.ts) and their block is appended to the instruction's user message, with a
// `memory_recall` event. During the turn, every fold's note — the model's fold or an auto-fold, the
// parent's or a child's, unless the child's named agent says `memory: off` — gives candidates
// (memory/candidates.ts); at the turn's end `auto` keeps them and `ask` writes them as pending, for
// the interactive prompt to ask about at once and for `hel memory review` elsewhere. Setting `off`
// makes none of this: nothing is read or written. A failure of memory's files never fails the turn.
import type { EventBus } from "../agent/event-bus.js";
import { memoryBlock } from "../agent/memory-block.js";
import { estimateTokens } from "../agent/meter.js";
import { unstamped } from "../agent/stamps.js";
import { noteCandidates } from "../memory/candidates.js";
import type { Fact } from "../memory/fact.js";
import { recallFacts } from "../memory/recall.js";
import { MemoryStore } from "../memory/store.js";
import type { Message } from "../wire/messages.js";
import type { Io, Project } from "./project.js";

export type { Fact, MemoryStore };

export interface ConversationMemory {
  readonly store: MemoryStore;
  /**
   * The block to append to `text` (the user message before it: notes, hook context, the instruction):
   * the facts recalled for `instruction`, or, when `text` is sent again unanswered, the block it had
   * (after a restart, recalled again: the same facts give the same block).
   */
  blockFor(text: string, instruction: string, messages: readonly Message[]): Promise<string>;
  /** Keeps the turn's candidates as `memory` says; the pending ones (`ask`) for the front end to ask about. */
  endTurn(): Promise<Fact[]>;
}

export function conversationMemory(project: Project, io: Io, bus: EventBus, sessionId: () => string): ConversationMemory | null {
  const mode = project.options.memory;
  if (mode === "off") return null;
  const store = new MemoryStore({ projectDir: project.dir, userDir: project.userMemoryDir, env: io.env, secrets: project.secrets });
  const failed = (error: unknown) => project.warn(`memory: ${error instanceof Error ? error.message : String(error)} — the turn goes on without it`);
  const silent = new Set(project.agents.filter((a) => a.memory === "off").map((a) => a.name));
  const silentChildren = new Set<number>();
  let candidates: { text: string; source: string }[] = [];
  /** The last message given a block, and its block. */
  let sent: { text: string; block: string } | null = null;
  bus.subscribe((event) => {
    if (event.type === "delegation_start" && event.agentName !== undefined && silent.has(event.agentName)) silentChildren.add(event.number);
    if (event.type !== "fold" || (event.delegation !== undefined && silentChildren.has(event.delegation))) return;
    const source = `fold ${sessionId()} ${event.file.handle}`;
    candidates.push(...noteCandidates(event.file.note).map((text) => ({ text, source })));
  });
  return {
    store,
    async blockFor(text, instruction, messages) {
      // The same message sent again unanswered keeps the block it had (what follows it, a plan note, stays).
      const last = messages.at(-1);
      if (sent && sent.text === text && last?.role === "user" && unstamped(last.content).startsWith(text + sent.block)) return sent.block;
      try {
        const facts = recallFacts(await store.recallable(), instruction);
        const block = memoryBlock(facts);
        sent = { text, block };
        if (facts.length > 0) {
          bus.emit({ agent: "parent", type: "memory_recall", facts: facts.map(({ id, scope, text: t }) => ({ id, scope, text: t })), tokens: estimateTokens(block) });
        }
        return block;
      } catch (error) {
        failed(error);
        return "";
      }
    },
    async endTurn() {
      const taken = candidates;
      candidates = [];
      const kept: Fact[] = [];
      for (const { text, source } of taken) {
        try {
          const fact = mode === "auto" ? await keepUnasked(store, text, source) : await store.propose(text, source);
          if (fact && mode === "ask") kept.push(fact);
        } catch (error) {
          failed(error);
        }
      }
      return kept;
    },
  };
}

/** `auto`: a candidate becomes a project fact at once, unless it may not be kept or is one already. */
async function keepUnasked(store: MemoryStore, text: string, source: string): Promise<Fact | null> {
  const known = (await store.facts()).some((l) => l.fact.text === text);
  if (known) return null;
  return store.add("project", text, source).catch(() => null);
}

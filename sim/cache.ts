// Prefix-cache accounting, the way DeepSeek's disk cache behaved when the seeds measured it. Contract:
//   - after a request, two units are stored: its prompt (to the end of its input) and prompt + output;
//   - a new request hits the longest prefix it shares with any stored unit, in whole blocks
//     (default 64 tokens): hit = blockSize × the number of leading blocks of its prompt that are stored;
//   - a unit shorter than one block stores nothing; each cache space (API key, user_id, model) is separate.
// Blocks are identified by chained hashes (a block's hash covers its text and every block before it), so
// "block k is stored" means "the first k+1 blocks of some stored unit equal ours" and the lookup is a walk
// over the new prompt's blocks until the first unknown one. Nothing here is shared between simulators.
import { createHash } from "node:crypto";
import type { TokenSeq } from "./template.js";

export class PrefixCache {
  private readonly spaces = new Map<string, Set<string>>();

  constructor(readonly blockSize = 64) {
    if (!Number.isInteger(blockSize) || blockSize < 1) throw new Error(`block size must be a positive integer, got ${blockSize}`);
  }

  /**
   * The chained hashes of the full blocks of `seq`. `known` may hold the hashes of a sequence that `seq`
   * extends (same text and tokens at the start); those are reused instead of recomputed.
   */
  blockHashes(seq: TokenSeq, known: readonly string[] = []): string[] {
    const b = this.blockSize;
    const full = Math.floor(seq.ends.length / b);
    const out = known.slice(0, full);
    for (let k = out.length; k < full; k++) {
      const start = k === 0 ? 0 : seq.ends[k * b - 1]!;
      const end = seq.ends[(k + 1) * b - 1]!;
      const h = createHash("sha1");
      h.update(k === 0 ? "" : out[k - 1]!);
      h.update("\u0000");
      h.update(seq.text.slice(start, end));
      out.push(h.digest("base64"));
    }
    return out;
  }

  /** Cached tokens for a prompt whose block hashes are `hashes`. */
  hit(space: string, hashes: readonly string[]): number {
    const stored = this.spaces.get(space);
    if (!stored) return 0;
    let k = 0;
    while (k < hashes.length && stored.has(hashes[k]!)) k++;
    return k * this.blockSize;
  }

  /** Stores one unit, given its block hashes (a unit under one block has none and stores nothing). */
  store(space: string, hashes: readonly string[]): void {
    if (hashes.length === 0) return;
    let stored = this.spaces.get(space);
    if (!stored) {
      stored = new Set();
      this.spaces.set(space, stored);
    }
    for (const h of hashes) stored.add(h);
  }
}

/** The cache space of a request: DeepSeek isolates caches per account key and per `user_id`. */
export function cacheSpace(apiKey: string, model: string, userId: unknown): string {
  return JSON.stringify([apiKey, model, typeof userId === "string" ? userId : ""]);
}

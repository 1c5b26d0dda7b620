// How far a search in its worker thread has got, in memory both threads share, so the thread that waits
// can tell a search that moves on from one stuck in a single match (a regular expression or glob that
// backtracks without end, which nothing can interrupt but ending its thread). The search marks each
// file before matching its path against the glob and before each part of it the pattern is run on;
// the waiting thread reads the mark without a message passing between them.
const PATH_BYTES = 1024;
/** Int32 slots: the mark's count, what was being matched, the path's length in bytes. */
const COUNT = 0;
const WHAT = 1;
const LENGTH = 2;
const HEADER_BYTES = 3 * Int32Array.BYTES_PER_ELEMENT;
const encoder = new TextEncoder();

export type Matching = "glob" | "pattern";

export interface SearchMark {
  count: number;
  what: Matching;
  /** The project-relative path being matched. */
  rel: string;
}

export class SharedProgress {
  private readonly slots: Int32Array;
  private readonly path: Uint8Array;

  constructor(readonly memory = new SharedArrayBuffer(HEADER_BYTES + PATH_BYTES)) {
    this.slots = new Int32Array(memory, 0, 3);
    this.path = new Uint8Array(memory, HEADER_BYTES, PATH_BYTES);
  }

  /** Called by the search before it matches `rel` against the glob or runs the pattern on a part of it. */
  mark(what: Matching, rel: string): void {
    const { written } = encoder.encodeInto(rel, this.path);
    Atomics.store(this.slots, LENGTH, written);
    Atomics.store(this.slots, WHAT, what === "glob" ? 0 : 1);
    Atomics.add(this.slots, COUNT, 1);
  }

  read(): SearchMark {
    const length = Atomics.load(this.slots, LENGTH);
    return {
      count: Atomics.load(this.slots, COUNT),
      what: Atomics.load(this.slots, WHAT) === 0 ? "glob" : "pattern",
      rel: new TextDecoder().decode(this.path.slice(0, length)),
    };
  }
}

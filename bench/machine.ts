// What the machine itself costs, printed above the table so the numbers can be read against it.
// Contract: cheap (well under a second) and run in the bench process before anything else. On small
// VMs the first touch of fresh memory (a page fault per page) can cost milliseconds per MB, which
// then shows up in every step that allocates large buffers or strings — session load above all.
import { median } from "./stats.js";

export interface MachineFacts {
  /** ms per MB to write memory the process has never touched (allocation + page faults). */
  freshMemoryMsPerMb: number;
  /** ms per MB to write the same memory again: the memory bandwidth alone. */
  touchedMemoryMsPerMb: number;
}

export function measureMachine(): MachineFacts {
  const size = 32 * 1024 * 1024;
  const fresh: number[] = [];
  const touched: number[] = [];
  for (let i = 0; i < 3; i++) {
    // allocUnsafe of this size is its own mmap, released when collected, so each round starts fresh.
    let t = performance.now();
    const b = Buffer.allocUnsafe(size);
    b.fill(i + 1);
    fresh.push(performance.now() - t);
    t = performance.now();
    b.fill(i + 2);
    touched.push(performance.now() - t);
  }
  const mb = size / 1e6;
  return { freshMemoryMsPerMb: median(fresh) / mb, touchedMemoryMsPerMb: median(touched) / mb };
}

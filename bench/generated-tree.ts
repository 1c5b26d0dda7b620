// What the bench's file-heavy rows share: a generated tree of small source files, and a stopwatch.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** `files` files of about 1 KB in folders of 10, under `root`. */
export function writeTree(root: string, files: number): void {
  const body = Array.from({ length: 20 }, (_, i) => `export const value${i} = ${i}; // a line of a source file`).join("\n");
  for (let n = 0; n < files; n++) {
    const dir = join(root, `d${n % 100}`, `e${Math.floor(n / 100) % 10}`);
    if (n < 1000) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${n}.ts`), `${body}\n// ${n}\n`);
  }
}

export const time = async (run: () => unknown): Promise<number> => {
  const start = performance.now();
  await run();
  return performance.now() - start;
};

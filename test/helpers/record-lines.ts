// The lines of a `--record` folder's raw/*.jsonl file, each parsed.
import { readFile } from "node:fs/promises";
import { join } from "node:path";

export async function recordLines<T = unknown>(out: string, file: "requests.jsonl" | "delegations.jsonl"): Promise<T[]> {
  return (await readFile(join(out, "raw", file), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as T);
}

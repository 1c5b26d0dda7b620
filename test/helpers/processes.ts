// Real processes in tests: which ones are still running (zombies, which run nothing, do not count),
// found by a marker in their command line, e.g. an unusual `sleep` duration.
import { execFileSync } from "node:child_process";

export function running(marker: string): string[] {
  const table = execFileSync("ps", ["-eo", "stat=,args="], { encoding: "utf8" });
  return table
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("Z") && line.includes(marker));
}

// The seed article's build loop as a project on disk, for the `build-loop` policy: `sh build.sh` fails
// with a long log while build.cfg says level=0, 1 or 2 (each fix raises it by one), and passes at 3. One
// line of each failing log states a rule a note must keep; the rest is noise of the kind a compiler
// prints. notes.txt is what the ordinary steps after the episode read.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

export const BUILD_COMMAND = "sh build.sh";
export const BUILD_RULE = "note: the linker must run with LC_ALL=C, or the symbol order changes";

/** Writes the project into `dir`; each failing build prints about `logLines` lines. */
export async function writeBuildLoopProject(dir: string, logLines = 400): Promise<void> {
  const script = [
    "level=$(sed -n 's/^level=//p' build.cfg)",
    'if [ "$level" -ge 3 ]; then echo "build ok: 42 modules linked"; exit 0; fi',
    `i=0; while [ $i -lt ${logLines} ]; do echo "src/mod$((i % 17))/file$i.ts($i,7): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number' (level $level)"; i=$((i+1)); done`,
    `echo "${BUILD_RULE}"`,
    'echo "error: build failed at level $level of 3; raise level in build.cfg"',
    "exit 2",
  ].join("\n");
  await writeFile(join(dir, "build.sh"), script + "\n");
  await writeFile(join(dir, "build.cfg"), "level=0\n");
  await writeFile(join(dir, "notes.txt"), Array.from({ length: 20 }, (_, i) => `step note ${i + 1}: keep the export format stable`).join("\n") + "\n");
}

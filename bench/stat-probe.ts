// Child process for the start rows' floor: what a fresh Node pays to list a project's agent files and
// skill folders and lstat each file once, synchronously, as a start must to see every change to them
// (a file edited in place changes only its own times, not its folder's). Nothing else is done, so this
// is the least any start with those files pays in Node before its first request; hel's own cost over a
// start without them is that plus what it makes of the files. Contract: prints one JSON line {ms, files}.
//   node out/bench/stat-probe.js <projectDir>
import { lstatSync, readdirSync } from "node:fs";
import { sep } from "node:path";

const [projectDir] = process.argv.slice(2) as [string];
const t0 = performance.now();
const agents = `${projectDir}${sep}.hel${sep}agents`;
const skills = `${projectDir}${sep}.hel${sep}skills`;
const files: string[] = [];
for (const name of readdirSync(agents)) if (name.endsWith(".md")) files.push(`${agents}${sep}${name}`);
for (const entry of readdirSync(skills, { withFileTypes: true })) if (entry.isDirectory()) files.push(`${skills}${sep}${entry.name}${sep}SKILL.md`);
let regular = 0;
for (const file of files) if (lstatSync(file, { throwIfNoEntry: false })?.isFile()) regular++;
const ms = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ ms, files: regular })}\n`);

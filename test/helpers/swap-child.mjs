// Child process for the path-swap race test: exchanges the directory <dir> with a symlink to <outside>
// in a tight loop, each step one atomic rename, so that <dir> is in turn the real directory and a link
// leading out. A directory that a tool makes at <dir> in between (creating parents of a new file) is
// moved aside. Stops when the file <stop> appears or after <ms> milliseconds, always leaving the real
// directory in place, and prints how many swaps it made.
// Usage: node swap-child.mjs <dir> <outside> <stop> <ms>
import { existsSync, renameSync, symlinkSync } from "node:fs";

const [dir, outside, stop, ms] = process.argv.slice(2);
const link = `${dir}.link`;
const real = `${dir}.real`;
symlinkSync(outside, link);
const end = Date.now() + Number(ms);
let swaps = 0;
let strays = 0;
/** Renames `from` to `to`, first moving aside whatever a tool made at `to` meanwhile. */
function move(from, to) {
  for (;;) {
    try {
      renameSync(from, to);
      return;
    } catch (e) {
      if (e.code !== "EISDIR" && e.code !== "ENOTEMPTY" && e.code !== "EEXIST") throw e;
      renameSync(to, `${dir}.stray-${strays++}`);
    }
  }
}
process.stdout.write("swapping\n");
for (;;) {
  move(dir, real);
  move(link, dir);
  move(dir, link);
  move(real, dir);
  swaps++;
  if (swaps % 8 === 0 && (existsSync(stop) || Date.now() > end)) break;
}
process.stdout.write(`${swaps}\n`);

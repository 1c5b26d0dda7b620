// Marks the built entry points executable, so `npm link` and `npx hel` run them directly.
import { chmodSync, existsSync } from "node:fs";
for (const bin of ["dist/bin/hel.cjs", "dist/evals/main.js", "dist/sim/main.js"]) {
  if (existsSync(bin)) chmodSync(bin, 0o755);
}

// Marks the built executable, so `npm link` and `npx hel` run it directly.
import { chmodSync } from "node:fs";
chmodSync("dist/bin/hel.cjs", 0o755);

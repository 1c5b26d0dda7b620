// Empties dist/ before a build, so the package never ships a module whose source is gone.
import { rmSync } from "node:fs";
rmSync("dist", { recursive: true, force: true });

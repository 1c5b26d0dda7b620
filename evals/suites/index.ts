// The suites `evals run <suite>` knows, by name.
import type { Suite } from "../suite.js";
import { fold } from "./fold.js";
import { h11 } from "./h11.js";
import { h9 } from "./h9.js";

export const SUITES: Readonly<Record<string, Suite>> = { h11, h9, fold };

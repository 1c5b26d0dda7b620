// zod as hel uses it: the library with hel's one global setting. Every module that builds schemas
// imports z from here, so the setting holds wherever hel validates: the CLI, the tests, the bench.
//
// jitless: by default zod compiles a parser for each object schema (new Function) the first time it
// parses with it. A run parses each schema only a handful of times, so the ~20 compilations, which
// no code cache keeps, cost more than they save: ~2 ms before the first request and ~10 ms of a
// four-step run. Bulk checks (a 10 MB snapshot's messages on resume) run ~10% slower, under 1 ms.
import { z } from "zod";

z.config({ jitless: true });

export { z };

// zod as hel uses it: the library with hel's one global setting. Every module that builds schemas
// imports z from here, so the setting holds wherever hel validates: the CLI, the tests, the bench.
//
// jitless: by default zod compiles a parser for each object schema (new Function) the first time it
// parses with it. A run parses each schema only a handful of times, so the compilations, which no
// code cache keeps, cost more than they save, before the first request and over a short run alike.
// Bulk checks run a little slower; a resumed snapshot written by hel is not checked message by message.
import { z } from "zod";

z.config({ jitless: true });

export { z };

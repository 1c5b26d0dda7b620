#!/usr/bin/env node
// hel's executable. It only sets V8's flags and runs the bundle (dist/bundle/main.cjs, built by
// rolldown from src/cli/main.ts) through the compile cache; everything else happens in the bundle.
// CommonJS, because Node reaches a CommonJS entry sooner than an ES module one.
import { setFlagsFromString } from "node:v8";
import { join } from "node:path";
import { processChunkLoader } from "./compile-cache.cjs";

// undici parses HTTP with llhttp compiled to WebAssembly; V8's optimizing tier recompiles it in the
// background for tens of MB of memory, which buys nothing at hel's traffic (one streamed answer at a time).
// Must be set before any WebAssembly is compiled, and before the code cache is read or made: V8
// accepts a cache only under the flags it was made with.
setFlagsFromString("--liftoff-only");
// The young generation starts small and doubles after each scavenge that keeps most of it, which at the
// start, where nearly everything made is still in use, means several pauses before the first request.
// Growing faster, it holds a start (with many agents and skills too) after fewer scavenges; its pages are
// touched only as it fills, and the largest size it may reach is V8's (docs/measured.md has the numbers).
setFlagsFromString("--semi-space-growth-factor=16");

processChunkLoader().load(join(__dirname, "..", "bundle", "main.cjs"));

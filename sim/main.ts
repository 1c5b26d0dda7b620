#!/usr/bin/env node
// Standalone simulator for the offline demo, evals and manual runs:
//   node out/sim/main.js [--port 0] [--policy demo|h11|h9|echo] [--block 64] [--api-key K]...
//                         [--context-window N] [--no-enforce-reasoning] [--script steps.json]
//                         [--mode deepseek|openai-compatible] [--no-usage] [--reasoning-field F] [--overflow S]
// Prints `listening http://127.0.0.1:PORT` on stdout once it accepts requests, then the `export` line that
// points an installed hel at it (the no-key route the README and hel's no-key error name); SIGINT/SIGTERM
// close it.
import { readFileSync } from "node:fs";
import { POLICIES } from "./policies.js";
import { startSimulator } from "./server.js";
import type { PolicyName, SimOptions, SimStep } from "./types.js";

const USAGE =
  `usage: sim [--port N] [--policy ${Object.keys(POLICIES).join("|")}] [--block N] ` +
  `[--api-key K] [--context-window N] [--no-enforce-reasoning] [--script file.json] ` +
  `[--mode deepseek|openai-compatible] [--no-usage] [--reasoning-field reasoning_content|reasoning] [--overflow vllm|llama.cpp]`;

function usage(message: string): never {
  process.stderr.write(`sim: ${message} — ${USAGE}\n`);
  process.exit(2);
}

const HELP = `sim: a local DeepSeek chat-completions simulator, for hel's tests, evals, demo and offline use.
${USAGE}

  --port N               port to listen on (default 0: any free port)
  --policy NAME          how it answers once the script is used up: ${Object.keys(POLICIES).join(", ")} (default echo)
  --script file.json     a JSON array of steps to answer the first requests with, in order
  --block N              prefix cache block size in tokens (default 64)
  --api-key K            accept only this key (repeatable; default: any key)
  --context-window N     context window in tokens (default 1048576)
  --no-enforce-reasoning do not require reasoning_content on tool-calling assistant messages
  --mode NAME            deepseek (default), or openai-compatible: a server that is not DeepSeek's (usage
                         without DeepSeek's cache fields, any model name, no key needed, its overflow error)
  --no-usage             answer without usage at all, as some servers do
  --reasoning-field F    reasoning_content (default) or reasoning
  --overflow SHAPE       openai-compatible: the context-overflow error of vllm (default) or llama.cpp

Prints "listening http://127.0.0.1:PORT" once it accepts requests, then the line to paste into another
terminal, in any project, to run hel on it without a DeepSeek key:
  export HEL_BASE_URL=http://127.0.0.1:PORT DEEPSEEK_API_KEY=sim-key
Ctrl-C stops it.
`;

/** The key hel is told to send: any key, unless --api-key limited them. */
const SIM_KEY = "sim-key";

function int(flag: string, value: string | undefined, min: number): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min) usage(`${flag} needs an integer ≥ ${min}`);
  return n;
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T {
  if (value === undefined || !(allowed as readonly string[]).includes(value)) usage(`${flag} needs one of ${allowed.join(", ")}`);
  return value as T;
}

function parse(argv: string[]): SimOptions {
  const opts: SimOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const next = (): string | undefined => argv[++i];
    switch (flag) {
      case "--port":
        opts.port = int(flag, next(), 0);
        break;
      case "--block":
        opts.blockSize = int(flag, next(), 1);
        break;
      case "--context-window":
        opts.contextWindow = int(flag, next(), 1);
        break;
      case "--policy": {
        const name = next();
        if (!name || !(name in POLICIES)) usage(`unknown policy ${JSON.stringify(name)}`);
        opts.policy = name as PolicyName;
        break;
      }
      case "--api-key": {
        const key = next();
        if (!key) usage("--api-key needs a value");
        (opts.apiKeys ??= []).push(key);
        break;
      }
      case "--mode":
        opts.mode = oneOf(flag, next(), ["deepseek", "openai-compatible"] as const);
        break;
      case "--no-usage":
        opts.omitUsage = true;
        break;
      case "--reasoning-field":
        opts.reasoningField = oneOf(flag, next(), ["reasoning_content", "reasoning"] as const);
        break;
      case "--overflow":
        opts.overflow = oneOf(flag, next(), ["vllm", "llama.cpp"] as const);
        break;
      case "--no-enforce-reasoning":
        opts.enforceReasoningContent = false;
        break;
      case "--script": {
        const file = next();
        if (!file) usage("--script needs a file");
        let steps: unknown;
        try {
          steps = JSON.parse(readFileSync(file, "utf8"));
        } catch (e) {
          usage(`cannot read ${file}: ${(e as Error).message}`);
        }
        if (!Array.isArray(steps)) usage(`${file} must hold a JSON array of steps`);
        opts.script = steps as SimStep[];
        break;
      }
      case "-h":
      // biome-ignore lint/suspicious/noFallthroughSwitchClause: process.exit ends the case
      case "--help":
        process.stdout.write(HELP);
        process.exit(0);
      default:
        usage(`unknown option ${flag}`);
    }
  }
  return opts;
}

const options = parse(process.argv.slice(2));
const sim = await startSimulator(options);
process.stdout.write(
  `listening ${sim.url}\n` +
    `To run hel on this simulator (no DeepSeek key needed), paste this into another terminal, in your project, then run hel:\n` +
    `  export HEL_BASE_URL=${sim.url} DEEPSEEK_API_KEY=${options.apiKeys?.[0] ?? SIM_KEY}\n`,
);
const shutdown = (): void => {
  void sim.close().then(() => process.exit(0));
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);

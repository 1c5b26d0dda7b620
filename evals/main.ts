#!/usr/bin/env node
// `evals`: rerun the seeds' experiments with the real hel CLI, offline on the simulator by default.
//   evals run <suite> [--conditions a,b] [--repeat N] [--model M] [--out DIR] [--build] [--timeout S]
//   evals demo        h11 with all four conditions, offline, printed as a comparison table
//   evals cost-model  the seed article's fork vs fresh-child cost table, from its assumptions or yours
// stdout: the summary (Markdown); stderr: progress. Exit 0 when the suite ran (judges may fail: they
// are results), 1 when it could not run, 2 on a usage error.
import { Command, InvalidArgumentError } from "commander";
import { UsageError, runEvals } from "./evals.js";
import { H11_INSTRUCTION } from "./suites/h11.js";
import { SUITES } from "./suites/index.js";
import { conditionTable, keyRequestTable, modeLine } from "./summary.js";
import { readFileSync } from "node:fs";
import { ARTICLE_PARAMS, costModel, costTable, type CostParams } from "./cost-model.js";
import { MeasuredSummarySchema, measuredCostSection } from "./fold-measures.js";

const wholeNumber = (flag: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} takes a whole number ≥ 1`);
  return n;
};
const seconds = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("--timeout takes a positive number of seconds");
  return n;
};
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Wraps text at word boundaries to `width` columns, each line indented. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines.join("\n");
}

const suiteHelp = Object.values(SUITES)
  .map((s) => [`  ${s.name}  ${s.title}`, ...Object.entries(s.conditions).map(([c, d]) => `      ${c.padEnd(18)} ${d}`)].join("\n"))
  .join("\n");

const program = new Command("evals")
  .description("Rerun the seeds' experiments with the real hel CLI: offline on the bundled simulator, or online on DeepSeek.")
  .showHelpAfterError("(add --help for usage)")
  .addHelpText("after", `\nSuites and their conditions:\n${suiteHelp}\n`);

program
  .command("run")
  .description("run a suite's conditions, judge each run, and write the summary (Markdown on stdout)")
  .argument("<suite>", `one of: ${Object.keys(SUITES).join(", ")}`)
  .option("--conditions <list>", "comma-separated conditions (default: all of the suite's)")
  .option("--repeat <n>", "runs per condition", wholeNumber("--repeat"), 1)
  .option("--model <name>", "run online on DeepSeek with this model (needs DEEPSEEK_API_KEY); without it, offline on the simulator")
  .option("--out <dir>", "write results to <dir>/<suite>/ (default: a new temporary directory)")
  .option("--build", "run npm run build first, so the current code is evaluated")
  .option("--timeout <seconds>", "wall-clock limit of one run; then hel is killed and the run fails", seconds, 120)
  .option("--keep-projects", "keep each run's project copy (otherwise deleted after judging)")
  .addHelpText(
    "after",
    `
Each run: a fresh temporary copy of the suite's fixture project, hel as a child process with --record,
the time limit, then the suite's judges. Output: <out>/<suite>/summary.md and summary.json, and for each
run <out>/<suite>/<condition>/run-<n>/ with run.json and hel's record.json and raw/ (h9's two-process
conditions: first/ and second/).

Examples:
  evals run h11 --conditions baseline,variant-full --repeat 3
  evals run h9 --repeat 2 --out results
  DEEPSEEK_API_KEY=sk-... evals run h11 --model deepseek-flash --build`,
  )
  .action(async (suite: string, opts: { conditions?: string; repeat: number; model?: string; out?: string; build?: boolean; timeout: number; keepProjects?: boolean }) => {
    const result = await runEvals({
      suite,
      ...(opts.conditions
        ? {
            conditions: opts.conditions
              .split(",")
              .map((c) => c.trim())
              .filter(Boolean),
          }
        : {}),
      repeat: opts.repeat,
      ...(opts.model !== undefined ? { model: opts.model } : {}),
      ...(opts.out !== undefined ? { out: opts.out } : {}),
      build: Boolean(opts.build),
      timeoutMs: opts.timeout * 1000,
      keepProjects: Boolean(opts.keepProjects),
      log,
    });
    process.stdout.write(result.markdown);
    log(`\nresults: ${result.dir} (summary.md, summary.json, one directory per run)`);
  });

program
  .command("demo")
  .description("hel's main job as a comparison: suite h11 with all four conditions, offline, as a table")
  .option("--out <dir>", "write results to <dir>/h11/ (default: a new temporary directory)")
  .option("--build", "run npm run build first")
  .action(async (opts: { out?: string; build?: boolean }) => {
    process.stdout.write(
      `hel demo — the H11 delegation task, four ways, offline\n\n` +
        `Task given to hel (fixtures/h11: services.ini with 60 services, deploy/api.yaml at port 8080):\n${wrap(`"${H11_INSTRUCTION}"`, 96, "  ")}\n\n` +
        `Each condition runs the real hel CLI on a fresh copy of the project; the bundled simulator plays DeepSeek over HTTP.\n\n`,
    );
    const result = await runEvals({ suite: "h11", repeat: 1, ...(opts.out !== undefined ? { out: opts.out } : {}), build: Boolean(opts.build), log });
    const s = result.summary;
    process.stdout.write(
      `\n${conditionTable(s)}\n\n` +
        s.judges.map((j) => `${j.title}: ${j.description}\n`).join("") +
        `Figures are per run: requests (parent / child), input tokens = cache hit + cache miss, output tokens, seconds.\n` +
        `baseline has no delegate_task tool: hel edits the file itself, so it cannot pass the delegation flow.\n\n` +
        `The requests around the delegation:\n\n${keyRequestTable(s)}\n\n` +
        `${modeLine(s)}\n` +
        `Full summary: ${result.dir}/summary.md — each run's record.json and raw/requests.jsonl are beside it.\n`,
    );
  });

const nonNegative = (flag: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`${flag} takes a number ≥ 0`);
  return n;
};
const costFlags: [keyof CostParams, string, string][] = [
  ["prefix", "--prefix <tokens>", "the parent's prefix a fork inherits"],
  ["system", "--system <tokens>", "a fresh child's system prompt"],
  ["turns", "--turns <n>", "requests in the child's loop"],
  ["added", "--added <tokens>", "tokens the loop adds over all its turns"],
  ["reread", "--reread <tokens>", "parent material a fresh child must read again"],
  ["read", "--read <factor>", "price factor of a cached token read"],
  ["write", "--write <factor>", "price factor of a token written into the cache"],
  ["foldedPrefix", "--folded-prefix <tokens>", "the parent's prefix after folding"],
  ["price", "--price <dollars>", "dollars per million fresh tokens"],
];
const costCommand = program.command("cost-model").description("print the seed article's table: a forked child against a fresh one, and a fork from the folded view");
for (const [key, flag, description] of costFlags) costCommand.option(flag, `${description} (article: ${ARTICLE_PARAMS[key]})`, nonNegative(flag.split(" ")[0]!), ARTICLE_PARAMS[key]);
costCommand.option("--from <summary.json>", "fill the sizes with what a fold suite run measured (its summary.json); the factors and price stay the flags'");
costCommand.action(({ from, ...opts }: CostParams & { from?: string }) => {
  if (from !== undefined) {
    process.stdout.write(`${measuredCostSection(readFoldSummary(from), opts)}\n`);
    return;
  }
  const model = costModel(opts);
  process.stdout.write(
    `${costTable(model, opts)}

` +
      `fork / fresh child: ${model.forkToFresh.toFixed(2)}× · the folded fork costs ${(model.foldedFork.total / model.fresh.total).toFixed(2)}× a fresh child
` +
      `Units: fresh-token equivalents (a cached read counts ${opts.read}, a cache write ${opts.write}); lines are rounded to thousands before they are added, as the article adds them.
`,
  );
});

function readFoldSummary(path: string) {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as Error).message} — give the summary.json an \`evals run fold\` wrote`);
  }
  let parsed;
  try {
    parsed = MeasuredSummarySchema.safeParse(JSON.parse(text));
  } catch {
    throw new UsageError(`${path} is not JSON — give the summary.json an \`evals run fold\` wrote`);
  }
  if (!parsed.success || parsed.data.suite !== "fold") throw new UsageError(`${path} is not a fold suite's summary.json — run \`evals run fold --out DIR\` and give DIR/fold/summary.json`);
  return parsed.data;
}

for (const command of [program, ...program.commands]) command.exitOverride();

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const e = error as { code?: string; exitCode?: number };
  if (e.code === "commander.helpDisplayed" || e.code === "commander.help" || e.code === "commander.version") process.exitCode = 0;
  else if (typeof e.code === "string" && e.code.startsWith("commander.")) process.exitCode = 2;
  else if (error instanceof UsageError) {
    process.stderr.write(`evals: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    if (process.env.HEL_DEBUG === "1") console.error(error);
    process.stderr.write(`evals: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

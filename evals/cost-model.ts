// The seed article's cost model of a forked child against a fresh one, as a pure function, so its
// table can be reprinted with the article's assumptions and refilled with what the fold suite
// measured. Units are "fresh-token equivalents": a token read from the cache counts `read` (0.1×),
// a token written into it `write` (1.25×), an uncached token 1.
//
// Lines, for a child loop of `turns` requests that adds `added` tokens in total:
// - prefix reads: the prefix the child starts from is re-read from the cache on every turn (the
//   parent's whole prefix for a fork, only the system prompt for a fresh child);
// - loop writes: what the loop adds is written into the cache once;
// - loop reads: what the loop added so far is re-read on each later turn, half of it on average;
// - re-reading: a fresh child must read again what the parent had already read (`reread`): written
//   once, then read from the cache on each later turn. A fork inherits it.
// The article adds its lines rounded to thousands; the totals here do the same, so the printed
// table reproduces its figures exactly. Sizes measured on a small fixture are far below a thousand
// tokens a line, so a model may be built rounding to whole tokens instead (`round`).

export interface CostParams {
  /** The parent's prefix a fork inherits, in tokens. */
  prefix: number;
  /** A fresh child's system prompt, in tokens. */
  system: number;
  turns: number;
  /** Tokens the child's loop adds over all its turns. */
  added: number;
  /** Parent material a fresh child must read again. */
  reread: number;
  /** Price factor of a cached token read. */
  read: number;
  /** Price factor of a token written into the cache. */
  write: number;
  /** The parent's prefix after folding, for the folded fork. */
  foldedPrefix: number;
  /** Dollars per million fresh tokens. */
  price: number;
}

export const ARTICLE_PARAMS: Readonly<CostParams> = Object.freeze({
  prefix: 100_000,
  system: 15_000,
  turns: 30,
  added: 150_000,
  reread: 30_000,
  read: 0.1,
  write: 1.25,
  foldedPrefix: 40_000,
  price: 3,
});

export interface CostColumn {
  prefixReads: number;
  loopWrites: number;
  loopReads: number;
  rereading: number;
  /** The lines' sum, each line rounded to thousands first (as the article adds them). */
  total: number;
  dollars: number;
}

export interface CostModel {
  fork: CostColumn;
  fresh: CostColumn;
  foldedFork: CostColumn;
  /** fork total / fresh total. */
  forkToFresh: number;
  /** What each line was rounded to before adding: 1000 as the article, 1 for measured sizes. */
  round: number;
}

function column(p: CostParams, prefix: number, reread: number, round: number): CostColumn {
  const rounded = (n: number): number => Math.round(n / round) * round;
  const lines = {
    prefixReads: prefix * p.turns * p.read,
    loopWrites: p.added * p.write,
    loopReads: (p.added * p.turns * p.read) / 2,
    rereading: reread * p.write + reread * p.read * (p.turns - 1),
  };
  const total = rounded(lines.prefixReads) + rounded(lines.loopWrites) + rounded(lines.loopReads) + rounded(lines.rereading);
  return { ...lines, total, dollars: (total / 1e6) * p.price };
}

export function costModel(p: CostParams, round = 1000): CostModel {
  const fork = column(p, p.prefix, 0, round);
  const fresh = column(p, p.system, p.reread, round);
  return { fork, fresh, foldedFork: column(p, p.foldedPrefix, 0, round), forkToFresh: fork.total / fresh.total, round };
}

/** The article's table, as Markdown: one row per line of the model, then totals and dollars. */
export function costTable(model: CostModel, p: CostParams): string {
  // Thousands as the article prints them; whole tokens for a model rounded finer.
  const k = (n: number): string => (model.round >= 1000 ? `${Math.round(n / 1000).toLocaleString("en-US")}K` : Math.round(n).toLocaleString("en-US"));
  const row = (label: string, factor: string, pick: (c: CostColumn) => string) => `| ${label} | ${factor} | ${pick(model.fork)} | ${pick(model.fresh)} | ${pick(model.foldedFork)} |`;
  return [
    `| line | factor | fork (prefix ${k(p.prefix)}) | fresh child (system ${k(p.system)}) | folded fork (prefix ${k(p.foldedPrefix)}) |`,
    "|---|---|---:|---:|---:|",
    row("prefix, read from the cache every turn", `${p.read}×`, (c) => k(c.prefixReads)),
    row("loop's additions, written once", `${p.write}×`, (c) => k(c.loopWrites)),
    row("loop's additions, re-read as they grow", `${p.read}×`, (c) => k(c.loopReads)),
    row("re-reading what the parent had read", `${p.write}× + ${p.read}×`, (c) => k(c.rereading)),
    row("**total (fresh-token equivalents)**", "", (c) => `**${k(c.total)}**`),
    row(`at $${p.price} per million tokens`, "", (c) => `$${c.dollars.toFixed(model.round >= 1000 ? 2 : 4)}`),
  ].join("\n");
}

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
// table reproduces its figures exactly.

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
}

const thousands = (n: number): number => Math.round(n / 1000) * 1000;

function column(p: CostParams, prefix: number, reread: number): CostColumn {
  const lines = {
    prefixReads: prefix * p.turns * p.read,
    loopWrites: p.added * p.write,
    loopReads: (p.added * p.turns * p.read) / 2,
    rereading: reread * p.write + reread * p.read * (p.turns - 1),
  };
  const total = thousands(lines.prefixReads) + thousands(lines.loopWrites) + thousands(lines.loopReads) + thousands(lines.rereading);
  return { ...lines, total, dollars: (total / 1e6) * p.price };
}

export function costModel(p: CostParams): CostModel {
  const fork = column(p, p.prefix, 0);
  const fresh = column(p, p.system, p.reread);
  return { fork, fresh, foldedFork: column(p, p.foldedPrefix, 0), forkToFresh: fork.total / fresh.total };
}

const k = (n: number): string => `${Math.round(n / 1000).toLocaleString("en-US")}K`;

/** The article's table, as Markdown: one row per line of the model, then totals and dollars. */
export function costTable(model: CostModel, p: CostParams): string {
  const row = (label: string, factor: string, pick: (c: CostColumn) => string) =>
    `| ${label} | ${factor} | ${pick(model.fork)} | ${pick(model.fresh)} | ${pick(model.foldedFork)} |`;
  return [
    `| line | factor | fork (prefix ${k(p.prefix)}) | fresh child (system ${k(p.system)}) | folded fork (prefix ${k(p.foldedPrefix)}) |`,
    "|---|---|---:|---:|---:|",
    row("prefix, read from the cache every turn", `${p.read}×`, (c) => k(c.prefixReads)),
    row("loop's additions, written once", `${p.write}×`, (c) => k(c.loopWrites)),
    row("loop's additions, re-read as they grow", `${p.read}×`, (c) => k(c.loopReads)),
    row("re-reading what the parent had read", `${p.write}× + ${p.read}×`, (c) => k(c.rereading)),
    row("**total (fresh-token equivalents)**", "", (c) => `**${k(c.total)}**`),
    row(`at $${p.price} per million tokens`, "", (c) => `$${c.dollars.toFixed(2)}`),
  ].join("\n");
}

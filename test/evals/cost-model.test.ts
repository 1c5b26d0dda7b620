// The seed article's cost table, recomputed: with its parameters the model must print its figures.
import { expect, it } from "vitest";
import { ARTICLE_PARAMS, costModel, costTable } from "../../evals/cost-model.js";

it("reproduces the article: fork ~713K, fresh ~583K, ~$2.14 and ~$1.75, ~1.2×, folded fork ~533K", () => {
  const m = costModel(ARTICLE_PARAMS);
  expect(m.fork).toMatchObject({ prefixReads: 300_000, loopWrites: 187_500, loopReads: 225_000, rereading: 0, total: 713_000 });
  expect(m.fresh).toMatchObject({ prefixReads: 45_000, loopWrites: 187_500, loopReads: 225_000, total: 583_000 });
  expect(m.fresh.rereading).toBeCloseTo(124_500);
  expect(m.foldedFork.total).toBe(533_000);
  expect(m.fork.dollars.toFixed(2)).toBe("2.14");
  expect(m.fresh.dollars.toFixed(2)).toBe("1.75");
  expect(m.forkToFresh.toFixed(1)).toBe("1.2");
  const table = costTable(m, ARTICLE_PARAMS);
  expect(table).toContain("| **total (fresh-token equivalents)** |  | **713K** | **583K** | **533K** |");
  expect(table).toContain("| at $3 per million tokens |  | $2.14 | $1.75 | $1.60 |");
});

it("follows its parameters: a longer parent prefix makes the fork dearer, a cheaper cache read narrows the gap", () => {
  const longer = costModel({ ...ARTICLE_PARAMS, prefix: 200_000 });
  expect(longer.fork.total).toBe(1_013_000);
  expect(longer.fresh.total).toBe(583_000);
  const cheaper = costModel({ ...ARTICLE_PARAMS, read: 0.05 });
  expect(cheaper.forkToFresh).toBeLessThan(costModel(ARTICLE_PARAMS).forkToFresh);
});

it("`evals cost-model` prints the table from the article's parameters, or from flags, and refuses a bad number", async () => {
  const { execFileSync, spawnSync } = await import("node:child_process");
  const { join } = await import("node:path");
  const evals = join(import.meta.dirname, "..", "..", "out", "evals", "main.js");
  const article = execFileSync(process.execPath, [evals, "cost-model"], { encoding: "utf8" });
  expect(article).toContain("| **total (fresh-token equivalents)** |  | **713K** | **583K** | **533K** |");
  expect(article).toContain("fork / fresh child: 1.22×");
  const longer = execFileSync(process.execPath, [evals, "cost-model", "--prefix", "200000"], { encoding: "utf8" });
  expect(longer).toContain("**1,013K**");
  const bad = spawnSync(process.execPath, [evals, "cost-model", "--turns", "x"], { encoding: "utf8" });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toContain("--turns takes a number ≥ 0");
});

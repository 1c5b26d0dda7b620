// `hel stats [--days N] [--json]`: what this project's sessions spent, by day and by model, from the
// requests their snapshots keep and the price table (HEL_PRICES or the built-in one).
import { realpath } from "node:fs/promises";
import { HelError } from "../errors.js";
import { findProjectRoot } from "../conversation/project-root.js";
import { loadPriceTable } from "../conversation/price-table.js";
import { projectRequests } from "../session/project-requests.js";
import { requestStats } from "../session/request-stats.js";
import { formatStats } from "./term/stats-view.js";
import type { Invocation } from "./options.js";

type StatsInvocation = Extract<Invocation, { kind: "stats" }>;

export async function runStatsCommand(invocation: StatsInvocation, io: { stdout: { write(text: string): unknown }; env: NodeJS.ProcessEnv }, now = new Date()): Promise<number> {
  const start = await realpath(invocation.cwd).catch(() => {
    throw new HelError(`the project directory ${invocation.cwd} does not exist — check -C`, 2);
  });
  const { root: projectDir } = await findProjectRoot(start);
  const table = await loadPriceTable(io.env);
  const { sessions, unrecorded } = await projectRequests(projectDir);
  const report = requestStats({ sessions, unrecordedSessions: unrecorded, table, days: invocation.days, now });
  io.stdout.write(invocation.json ? `${JSON.stringify(report)}\n` : formatStats(report, table.peak));
  return 0;
}

// The session's spend limit (--max-cost), asked by every agent's loop before each request: children
// spend the same session's money, and what one holds for its request in flight is not there for its
// siblings'. The session's earlier processes kept their tokens, not their dollars: priced now at its model.
import { spendAnswer, type SpendLimit } from "../agent/spend-limit.js";
import type { UsageLedger } from "../agent/usage-ledger.js";
import { requestCost, type PriceTable } from "../model/prices.js";
import type { ActiveSession } from "../session/session.js";

/** Undefined without --max-cost. */
export function sessionSpendLimit(maxCost: number | null, session: ActiveSession, ledger: UsageLedger, prices: PriceTable): SpendLimit | undefined {
  if (maxCost === null) return undefined;
  const before = session.storedUsage;
  const spentBefore = requestCost(before, session.request.model, new Date(), prices) ?? 0;
  return ({ agent, ...ask }) => {
    const now = ledger.run().total.cost_usd;
    const answer = spendAnswer({ ...ask, spent: now === null ? null : now + spentBefore, held: ledger.held(), maxCost, table: prices, at: new Date() });
    if ("hold" in answer) ledger.hold(agent, answer.hold);
    return answer;
  };
}

// The one place usage is totalled. It reads the event stream, and every reader that reports usage (the
// terminal, `--json`, `--record`, the snapshot, subagent transcripts) asks it instead of summing on its
// own. Each answered request is priced once, as its response arrives, for the model its request named.
// It also keeps what --max-cost holds for requests in flight (spend-limit.ts says how much): a hold is
// put down before an agent sends and dropped when that agent's response event (answer or failure)
// arrives, in the same step that adds the answer's cost, so the spend plus the holds never dips while
// a request is out. An agent has one request out at a time, so a hold is kept per agent.
import { requestCost, type PriceTable } from "../model/prices.js";
import type { Usage } from "../wire/messages.js";
import type { DelegateMode } from "./events.js";
import type { AgentEvent, AgentRef, ChildKind } from "./events.js";
import { addUsage, emptyTotals, sumTotals, type RequestUsage, type Spend } from "./usage.js";

export interface Pricing {
  table: PriceTable;
  /** When a response arrives: peak hours cost more. */
  now: () => Date;
}

export interface DelegationSpend extends Spend {
  delegation: number;
  kind: ChildKind;
  mode: DelegateMode | null;
  /** The named agent of a delegation that had one. */
  agentName?: string;
}

export interface UsageReport {
  total: Spend;
  parent: Spend;
  /** All children together. */
  children: Spend;
  /** One entry per child (delegation or review), in the order they started. */
  delegations: DelegationSpend[];
  /** Answers hel mended (`repair` events), every agent's. */
  repairs: number;
}

export interface UsageLedger {
  observe(event: AgentEvent): void;
  /** Since the parent's latest turn_start: the instruction running or just ended. */
  instruction(): UsageReport;
  /** Everything this process has sent. */
  run(): UsageReport;
  /** Each request this process had answered, in the order the answers came. */
  requests(): readonly RequestUsage[];
  /** Holds `usd` for the request `agent` is about to send, until its response event. */
  hold(agent: AgentRef, usd: number): void;
  /** US dollars held for requests sent and not yet answered. */
  held(): number;
}

/**
 * The parent, then each child with its mode (a delegation, and the named agent that did it) or kind
 * (a review): `--json`'s and record.json's `by_agent`.
 */
export function byAgent(report: UsageReport) {
  return [
    { agent: "parent" as const, ...report.parent },
    ...report.delegations.map(({ delegation, kind, mode, agentName, ...spend }) => ({
      agent: "child" as const,
      delegation,
      ...(kind === "delegate" ? { mode } : { kind }),
      ...(agentName ? { agent_name: agentName } : {}),
      ...spend,
    })),
  ];
}

export const emptySpend = (): Spend => ({ ...emptyTotals(), cost_usd: 0 });

function addSpend(spend: Spend, usage: Usage, cost: number | null): Spend {
  return { ...addUsage(spend, usage), cost_usd: spend.cost_usd === null || cost === null ? null : spend.cost_usd + cost };
}

function sumSpend(a: Spend, b: Spend): Spend {
  return { ...sumTotals(a, b), cost_usd: a.cost_usd === null || b.cost_usd === null ? null : a.cost_usd + b.cost_usd };
}

// Sums of fractions of a cent pick up float noise (0.1 + 0.2); a billionth of a dollar is plenty.
const rounded = <T extends Spend>(spend: T): T => ({ ...spend, cost_usd: spend.cost_usd === null ? null : Math.round(spend.cost_usd * 1e9) / 1e9 });

class Scope {
  parent = emptySpend();
  readonly delegations = new Map<number, DelegationSpend>();
  repairs = 0;

  report(): UsageReport {
    const delegations = [...this.delegations.values()];
    const children = delegations.reduce<Spend>((sum, d) => sumSpend(sum, d), emptySpend());
    return {
      total: rounded(sumSpend(this.parent, children)),
      parent: rounded(this.parent),
      children: rounded(children),
      delegations: delegations.map(rounded),
      repairs: this.repairs,
    };
  }
}

export function createUsageLedger(pricing: Pricing): UsageLedger {
  let instruction = new Scope();
  const run = new Scope();
  /** The model each agent's latest request named, by agent and delegation. */
  const models = new Map<string, string>();
  const keyOf = (ref: AgentRef) => `${ref.agent}:${ref.delegation ?? 0}`;
  const holds = new Map<string, number>();
  const requests: RequestUsage[] = [];

  return {
    observe(event) {
      switch (event.type) {
        case "turn_start":
          if (event.agent === "parent") instruction = new Scope();
          break;
        case "request":
          models.set(keyOf(event), event.body.model);
          break;
        case "repair":
          instruction.repairs++;
          run.repairs++;
          break;
        case "delegation_start":
          for (const scope of [instruction, run]) {
            const named = event.agentName ? { agentName: event.agentName } : {};
            scope.delegations.set(event.number, { delegation: event.number, kind: event.kind, mode: event.mode, ...named, ...emptySpend() });
          }
          break;
        case "response": {
          holds.delete(keyOf(event));
          if (!event.usage) break;
          const model = models.get(keyOf(event));
          const at = pricing.now();
          const cost = model === undefined ? null : requestCost(event.usage, model, at, pricing.table);
          requests.push(requestUsage(event, model ?? "", at, event.usage, cost));
          for (const scope of [instruction, run]) {
            if (event.agent === "parent") {
              scope.parent = addSpend(scope.parent, event.usage, cost);
              continue;
            }
            const child = scope.delegations.get(event.delegation ?? 0);
            if (child) scope.delegations.set(child.delegation, { ...child, ...addSpend(child, event.usage, cost) });
          }
          break;
        }
      }
    },
    instruction: () => instruction.report(),
    run: () => run.report(),
    requests: () => requests,
    hold: (agent, usd) => void holds.set(keyOf(agent), usd),
    held: () => [...holds.values()].reduce((sum, usd) => sum + usd, 0),
  };
}

function requestUsage(ref: AgentRef, model: string, at: Date, usage: Usage, cost: number | null): RequestUsage {
  return {
    agent: ref.agent,
    ...(ref.agent === "child" && ref.delegation !== undefined ? { delegation: ref.delegation } : {}),
    model,
    at: at.toISOString(),
    prompt_tokens: usage.prompt_tokens,
    prompt_cache_hit_tokens: usage.prompt_cache_hit_tokens,
    prompt_cache_miss_tokens: usage.prompt_cache_miss_tokens,
    completion_tokens: usage.completion_tokens,
    ...(usage.estimated ? { estimated: true as const } : {}),
    cost_usd: cost,
  };
}

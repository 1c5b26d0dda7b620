// Suite h11 (seed H11, subagents): the parent reads services.ini (60 services, [api] port 8143), hands
// the edit of deploy/api.yaml to a subagent with delegate_task, reads the file back and answers the
// port. Conditions: no delegate tool (baseline) and the three ways of building the child's context.
import { delegationFlowJudge, exactAnswerJudge, yamlValueJudge } from "../judges.js";
import type { KeyRequest, RunRequest, Suite } from "../suite.js";

/** The seed's instruction, in English. */
export const H11_INSTRUCTION =
  "Read services.ini to find the api service's port. Then delegate to a subagent, with delegate_task, the job of " +
  "changing the port in deploy/api.yaml to that value. After the subagent's result, read deploy/api.yaml yourself " +
  "to check the changed line, and give only the changed port number as your final answer.";

export const H11_PORT = "8143";
const YAML = "deploy/api.yaml";

const CONDITIONS = {
  baseline: "no delegate_task tool (hel without --delegate)",
  "variant-full": "--delegate full: the child gets the whole conversation",
  "variant-no-tools": "--delegate no-tools: the conversation without tool calls and results",
  "variant-task-only": "--delegate task-only: the system prompt and the task only",
} as const;

const firstChild = (rs: readonly RunRequest[]): number => rs.findIndex((r) => r.agent === "child");

const keyRequests: KeyRequest[] = [
  {
    label: "parent, delegating request",
    pick: (rs) => {
      const c = firstChild(rs);
      return c < 0 ? undefined : rs.slice(0, c).findLast((r) => r.agent === "parent");
    },
  },
  {
    label: "child, first request",
    pick: (rs) => {
      const c = firstChild(rs);
      return c < 0 ? undefined : rs[c];
    },
  },
  {
    label: "parent, first after delegation",
    pick: (rs) => {
      const c = firstChild(rs);
      return c < 0 ? undefined : rs.slice(c).find((r) => r.agent === "parent");
    },
  },
];

export const h11: Suite = {
  name: "h11",
  title: "delegation: the parent delegates the edit of deploy/api.yaml to a subagent, then checks it",
  fixture: "h11",
  policy: "h11",
  conditions: CONDITIONS,
  params: () => ({}),
  plan: (condition) => {
    const mode = condition === "baseline" ? null : condition.replace(/^variant-/, "");
    return [{ instructions: [H11_INSTRUCTION], args: mode ? ["--delegate", mode] : [], recordDir: "" }];
  },
  files: [YAML],
  judges: [yamlValueJudge(YAML, "port", H11_PORT), exactAnswerJudge(H11_PORT), delegationFlowJudge(YAML)],
  keyRequests,
};

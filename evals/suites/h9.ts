// Suite h9 (seed H9, sessions): the first instruction gives a fresh random identifier, the second asks
// for it with no tools offered, so only the conversation can hold it. Conditions: one process with
// two stdin lines (continuous), two processes without resume (restart, the control that should fail)
// and two processes where the second resumes the first's session (resume).
import { randomBytes, randomInt } from "node:crypto";
import { answerContainsJudge } from "../judges.js";
import { lastUserText, type Suite } from "../suite.js";

const WORDS = ["cedar", "maple", "birch", "alder", "aspen", "larch", "rowan", "hazel", "willow", "juniper"];

/** A fresh identifier such as `cedar-4827-3fa9c1d2e0b4`: nothing in the project or the prompt predicts it. */
export function newIdentifier(): string {
  return `${WORDS[randomInt(WORDS.length)]}-${randomInt(1000, 10000)}-${randomBytes(6).toString("hex")}`;
}

export const h9FirstInstruction = (id: string): string => `Remember this identifier: ${id}. Reply with OK.`;
export const H9_SECOND_INSTRUCTION = "What identifier did I ask you to remember? Answer with the identifier only, or UNKNOWN if you do not know it.";

/** Every process: no tools (nothing to read the identifier from) and the seed's 8192-token output limit. */
const COMMON = ["--tools", "none", "--max-output-tokens", "8192"];

const isSecond = (text: string): boolean => text === H9_SECOND_INSTRUCTION;

export const h9: Suite = {
  name: "h9",
  title: "sessions: an identifier given in the first instruction, asked for in the second",
  fixture: "h9",
  policy: "h9",
  conditions: {
    continuous: "one process, both instructions as stdin lines",
    restart: "two processes, the second starts a new session",
    resume: "two processes, the second with --resume <the first's session id>",
  },
  params: () => ({ identifier: newIdentifier() }),
  plan: (condition, params) => {
    const first = h9FirstInstruction(params.identifier!);
    switch (condition) {
      case "continuous":
        return [{ instructions: [first, H9_SECOND_INSTRUCTION], args: COMMON, recordDir: "" }];
      case "restart":
      case "resume":
        return [
          { instructions: [first], args: COMMON, recordDir: "first" },
          { instructions: [H9_SECOND_INSTRUCTION], args: COMMON, recordDir: "second", resumePrevious: condition === "resume" },
        ];
      default:
        throw new Error(`h9 has no condition ${condition}`);
    }
  },
  files: [],
  judges: [answerContainsJudge("identifier")],
  keyRequests: [
    { label: "first instruction, first request", pick: (rs) => rs.find((r) => r.agent === "parent" && !isSecond(lastUserText(r))) },
    { label: "second instruction, first request", pick: (rs) => rs.find((r) => r.agent === "parent" && isSecond(lastUserText(r))) },
  ],
};

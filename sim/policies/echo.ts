// echo: answers "echo: <last user message>"; the policy a simulator started without one plays.
import type { Policy } from "../types.js";
import { lastUserText } from "./conversation.js";

export const echo: Policy = (req) => ({ content: `echo: ${lastUserText(req)}` });

// The one error type the session store throws. Its message is a single line for a person (what went
// wrong — what to do); exitCode is the CLI's exit status: 1 I/O failed, 2 unknown id or broken snapshot,
// 3 the session (or the store) is in use by another process.
import { HelError } from "../errors.js";

export class SessionError extends HelError {
  override name = "SessionError";
}

export { oneLine, systemProblem } from "../errors.js";

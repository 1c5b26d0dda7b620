// The simulator in its own process, for the harness measurement. Contract: prints
// `listening <url>` once it accepts requests; answers every instruction with `steps` calls of
// bench_noop (one per request, each with its step number) and then a short final answer; exits on
// SIGTERM or when its parent goes.
// It runs apart from the measured agent loop so that parsing and tokenizing megabyte requests never
// shares the loop's event loop or heap, and cannot show up as hel's own time.
//   node out/bench/sim-child.js <steps>
import { startSimulator } from "../sim/index.js";
import type { ChatRequest } from "../src/wire/messages.js";

const steps = Number(process.argv[2] ?? "5");

function toolResultsSinceLastUser(req: ChatRequest): number {
  let n = 0;
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const role = req.messages[i]!.role;
    if (role === "user") break;
    if (role === "tool") n++;
  }
  return n;
}

const sim = await startSimulator({
  // Each call of a turn its own: the same call three times running is a storm, which hel does not run.
  policy: (req) => {
    const n = toolResultsSinceLastUser(req);
    return n < steps
      ? { reasoning: "Checking once more with the noop tool before answering.", tool_calls: [{ name: "bench_noop", arguments: `{"step":${n}}` }] }
      : { reasoning: "That is enough.", content: "Done: the noop tool answered every time." };
  },
});
process.stdout.write(`listening ${sim.url}\n`);
const stop = (): void => {
  void sim.close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// The parent holds our stdin open; its end means the bench is gone.
process.stdin.on("end", stop).resume();

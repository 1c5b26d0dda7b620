// job_output and job_kill: the model's view of the session's background jobs (jobs.ts), which
// run_command {background: true} starts. A look or a kill of a job that may write (any access but
// read-only) counts as a change of the turn, so the turn's checkpoints hold what the job changed.
import { z } from "../../zod.js";
import { ToolError, type Tool, type ToolContext } from "../types.js";
import { jobsOf, MAX_WAIT_S, type BackgroundJobs } from "./jobs.js";

const JobOutputArgs = z.strictObject({
  job: z.int().min(1),
  // A wait out of bounds is told its bounds.
  wait_s: z.number().min(0).max(MAX_WAIT_S).optional(),
});
const JobKillArgs = z.strictObject({ job: z.int().min(1) });

export const jobOutputTool: Tool<z.infer<typeof JobOutputArgs>> = {
  name: "job_output",
  description: "A background job's new output; its exit code once ended.",
  schema: JobOutputArgs,
  spill: false,
  run: async (args, ctx) => (await sessionJobs(ctx)).look(args.job, args.wait_s ?? 0, ctx.signal),
};

export const jobKillTool: Tool<z.infer<typeof JobKillArgs>> = {
  name: "job_kill",
  description: "End a background job.",
  schema: JobKillArgs,
  spill: false,
  run: async (args, ctx) => (await sessionJobs(ctx)).kill(args.job, ctx.signal),
};

async function sessionJobs(ctx: ToolContext): Promise<BackgroundJobs> {
  const jobs = jobsOf(ctx.session);
  if (jobs === undefined || ctx.caller.label !== null) throw new ToolError("there are no background jobs here: run_command {background: true} starts them, in the main conversation only");
  if (ctx.policy.access !== "read-only") await ctx.changes.beforeChange(ctx.signal);
  return jobs;
}

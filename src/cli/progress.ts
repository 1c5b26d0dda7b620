// What hel is doing while the user waits, as the one line the spinner shows: the current step of
// the agent that is working (requesting, thinking, writing, running a tool; a subagent's own step
// while it works) and the time since the instruction began. Reads the event stream; the clock and
// the spinner frame are passed in, so the line is a pure function of what happened.
import type { AgentEvent } from "../agent/events.js";
import { toolCallLabel } from "./tool-views.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

interface Activity {
  what: string;
  step: number;
}

export class Progress {
  private startedAt: number | null = null;
  private parent: Activity = { what: "starting", step: 0 };
  /** Working subagents by delegation number, the most recently active last. */
  private readonly children = new Map<number, Activity>();

  observe(event: AgentEvent, now: number): void {
    if (event.type === "turn_start" && event.agent === "parent") {
      this.startedAt = now;
      this.parent = { what: "starting", step: 0 };
      this.children.clear();
      return;
    }
    if (event.type === "turn_end") {
      if (event.agent === "parent") this.startedAt = null;
      else this.children.delete(event.delegation ?? 0);
      return;
    }
    const child = event.agent === "child" ? (event.delegation ?? 0) : null;
    const current = child === null ? this.parent : (this.children.get(child) ?? { what: "starting", step: 0 });
    const what = activity(event);
    const next = { what: what ?? current.what, step: event.type === "request" ? event.step : current.step };
    if (child === null) this.parent = next;
    else {
      this.children.delete(child);
      this.children.set(child, next);
    }
  }

  /** The spinner's line, or null when no instruction is running. */
  line(now: number, frame: number): string | null {
    if (this.startedAt === null) return null;
    const child = [...this.children].at(-1);
    const who = child ? `subagent #${child[0]}: ` : "";
    const { what, step } = child ? child[1] : this.parent;
    const steps = step > 1 ? ` · step ${step}` : "";
    return `${FRAMES[frame % FRAMES.length]} ${who}${what}${steps} · ${elapsed(now - this.startedAt)}`;
  }
}

function activity(event: AgentEvent): string | null {
  switch (event.type) {
    case "request":
      return event.attempt > 1 ? `requesting (attempt ${event.attempt})` : "requesting";
    case "retry":
      return `waiting to retry: ${event.reason}`;
    case "reasoning_delta":
      return "thinking";
    case "text_delta":
      return "writing";
    case "tool_start":
      return `running ${toolCallLabel(event.name, event.arguments)}`;
    case "delegation_start":
      return `starting subagent #${event.number}`;
    default:
      return null;
  }
}

/** "4.2s" under a minute, then "3m 07s". */
function elapsed(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, "0")}s`;
}

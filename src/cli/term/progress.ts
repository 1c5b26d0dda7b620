// What hel is doing while the user waits, as the lines the spinner shows: the parent's current step
// (requesting, thinking, writing, running a tool, waiting for its subagents) and the time since the
// instruction began, then one line per working subagent with its mode, step and tokens so far.
// Reads the event stream; the clock and the spinner frame are passed in, so the lines are a pure
// function of what happened.
import type { AgentEvent } from "../../agent/events.js";
import { childLabel } from "../../agent/children/kinds.js";
import { groupDigits, plural } from "../../format.js";
import { toolCallLabel } from "./tool-views.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

interface Activity {
  what: string;
  step: number;
}

interface ChildActivity extends Activity {
  /** Its delegation mode, or "review". */
  label: string;
  tokens: number;
}

export class Progress {
  private startedAt: number | null = null;
  private parent: Activity = { what: "starting", step: 0 };
  /** Working subagents by delegation number, in the order they started. */
  private readonly children = new Map<number, ChildActivity>();

  observe(event: AgentEvent, now: number): void {
    if (event.type === "turn_start" && event.agent === "parent") {
      this.startedAt = now;
      this.parent = { what: "starting", step: 0 };
      this.children.clear();
      return;
    }
    if (event.type === "delegation_start") {
      this.children.set(event.number, { what: "starting", step: 0, label: childLabel(event), tokens: 0 });
      return;
    }
    if (event.type === "delegation_end") {
      this.children.delete(event.number);
      return;
    }
    if (event.type === "turn_end" && event.agent === "parent") {
      this.startedAt = null;
      return;
    }
    const child = event.agent === "child" ? this.children.get(event.delegation ?? 0) : undefined;
    const current = event.agent === "child" ? child : this.parent;
    if (!current) return;
    current.what = activity(event) ?? current.what;
    if (event.type === "request") current.step = event.step;
    if (child && event.type === "response" && event.usage) child.tokens += event.usage.prompt_tokens + event.usage.completion_tokens;
  }

  /** The spinner's lines, none when no instruction is running. */
  lines(now: number, frame: number): string[] {
    if (this.startedAt === null) return [];
    const children = [...this.children];
    const waiting = children.length > 0 ? `waiting for ${children.length > 1 ? plural(children.length, "subagent") : `subagent #${children[0]![0]}`}` : null;
    const parent = `${FRAMES[frame % FRAMES.length]} ${waiting ?? this.parent.what}${steps(this.parent)} · ${elapsed(now - this.startedAt)}`;
    // What it does comes last: a narrow terminal cuts that before the figures.
    const childLines = children.map(([number, c]) => `  #${number} ${c.label} · step ${Math.max(c.step, 1)} · ${groupDigits(c.tokens)} tokens · ${c.what}`);
    return [parent, ...childLines];
  }
}

function steps(activity: Activity): string {
  return activity.step > 1 ? ` · step ${activity.step}` : "";
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

// `hel sessions export` of a session made on the simulator (helpers/exported-session.ts: a fold, an
// edit, a subagent, seven requests): the JSON document and its schema, the Markdown, the ATIF
// trajectory validated against the format's schema, the page's own safety (its policy, the model's
// HTML shown as text), and the API key masked in every format. The page in a browser: page-browser.test.ts.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Ajv } from "ajv";
import { beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { EXPORT_FORMATS } from "../../src/view/format-names.js";
import { SessionDocumentSchema, type Entry, type SessionDocument, type ToolCallEntry } from "../../src/view/document.js";
import { markdownHtml } from "../../src/view/markdown-html.js";
import { buildDocument } from "../../src/view/build-document.js";
import { renderSessionPage } from "../../src/view/page.js";
import { loadChildren } from "../../src/session/child-files.js";
import { loadSnapshotFile } from "../../src/session/snapshot-file.js";
import { forkSession } from "../../src/session/fork.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { CHILD_TASK, exportScript, makeExportedSession, type MadeSession } from "../helpers/exported-session.js";
import { KEY } from "../helpers/sim.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
let made: MadeSession;
const exported: Record<string, string> = {};

async function exportAs(format: string): Promise<string> {
  const out = join(await tempProject(), `session.${format}`);
  const run = await runHelInProcess({ args: ["-C", made.dir, "sessions", "export", made.id.slice(0, 8), "--format", format, "-o", out], env: { DEEPSEEK_API_KEY: KEY } });
  expect(run.code, run.stderr).toBe(0);
  return readFile(out, "utf8");
}

beforeAll(async () => {
  sim = await startSimulator({ script: exportScript() });
  made = await makeExportedSession(sim);
  for (const format of EXPORT_FORMATS) exported[format] = await exportAs(format);
  await sim.close();
});

const calls = (entries: readonly Entry[]): ToolCallEntry[] => entries.filter((e): e is ToolCallEntry => e.type === "tool_call");

describe("hel sessions export --format json", () => {
  it("is the versioned document: every request's tokens as the server counted them, the fold's span, the edit, the child under its call", () => {
    const doc: SessionDocument = SessionDocumentSchema.parse(JSON.parse(exported.json!));
    expect(doc).toMatchObject({ format: "hel.session-export", version: 1, session: { id: made.id, written_by_hel: true, last_turn: { exit_reason: "completed" } } });
    // Seven requests, in the order they were answered: four of the parent's, the child's two, the parent's last.
    expect(doc.requests.map((r) => (r.agent === "parent" ? "p" : `c${r.delegation}`))).toEqual(["p", "p", "p", "p", "c1", "c1", "p"]);
    expect(doc.requests.map((r) => [r.prompt_cache_hit_tokens, r.prompt_cache_miss_tokens, r.completion_tokens])).toEqual(
      sim.requests.map((r) => [r.usage!.prompt_cache_hit_tokens, r.usage!.prompt_cache_miss_tokens, r.usage!.completion_tokens]),
    );
    const parent = doc.spend.by_agent.find((a) => a.agent === "parent")!;
    const child = doc.spend.by_agent.find((a) => a.agent === "child")!;
    expect([parent.requests, child.requests, doc.spend.total.requests]).toEqual([5, 2, 7]);
    expect(doc.spend.total.prompt_tokens).toBe(sim.requests.reduce((sum, r) => sum + r.usage!.prompt_tokens, 0));

    const [fold, edit, delegate] = calls(doc.entries);
    expect(fold).toMatchObject({ name: "fold", archive: doc.archive[0]!.handle });
    expect(doc.archive[0]).toMatchObject({ kind: "fold", first_stamp: 2, last_stamp: 2, note: expect.stringContaining("a.txt says hello there") });
    expect(calls(doc.archive[0]!.entries!)).toEqual([expect.objectContaining({ name: "read_file", result: expect.stringContaining("hello there") })]);
    expect(edit).toMatchObject({ name: "search_replace", edit: { path: "a.txt", added: 1, removed: 1, hunks: [{ lines: [" line one", "-hello there", "+hello world", " line three"] }] } });
    expect(delegate).toMatchObject({ name: "delegate_task", child: 1 });
    expect(doc.children).toEqual([expect.objectContaining({ number: 1, mode: "task-only", task: CHILD_TASK, call_id: delegate!.id, answer: "notes.md asks to **ship it** on Friday.", exit_reason: "completed" })]);
    expect(calls(doc.children[0]!.entries)).toEqual([expect.objectContaining({ name: "read_file", result: expect.stringContaining("Ship it on Friday.") })]);
    expect(doc.turns).toEqual([expect.objectContaining({ n: 1, stamp: 1 })]);
    expect(doc.checkpoints.map((c) => c.kind)).toEqual(["turn", "end"]);
  });

  it("masks the API key in every format, even where the user typed it", () => {
    for (const format of EXPORT_FORMATS) {
      expect(exported[format], format).not.toContain(KEY);
      expect(exported[format], format).toContain("[REDACTED]");
    }
  });

  it("refuses a format it does not know, as a usage error", async () => {
    const run = await runHelInProcess({ args: ["-C", made.dir, "sessions", "export", made.id, "--format", "pdf"] }).catch((error: Error & { exitCode?: number }) => ({ code: error.exitCode, stderr: error.message }));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/html, md, json, atif/);
  });
});

describe("a session saved before hel kept each request", () => {
  it("has its totals, each child's dollars from its transcript, the parent's unknown, and a page that says why it has no chart", async () => {
    const { snapshot } = await loadSnapshotFile(made.dir, made.id);
    const { requests: _, ...older } = snapshot;
    const children = (await loadChildren(made.dir, made.id)).map((c) => ({ transcript: c.transcript, vouched: true }));
    const doc = buildDocument({ snapshot: older, signed: true, children, archive: new Map(), secrets: [KEY], exportedAt: new Date() });
    expect(doc.requests).toEqual([]);
    expect(doc.spend.total).toEqual({ ...snapshot.usage, cost_usd: null });
    expect(doc.spend.by_agent.map((a) => [a.label, a.requests, a.cost_usd === null])).toEqual([
      ["parent", 5, true],
      ["#1 task-only", 2, false],
    ]);
    // An archive not read is said so, not left out.
    expect(doc.archive[0]).toMatchObject({ entries: null, problem: "its file was not read" });
    const page = renderSessionPage(doc, { script: "void 0", style: "" });
    expect(page).not.toContain('id="request-chart"');
    expect(page).toContain("saved before hel kept each request's tokens");
  });
});

it("a fork starts with no requests of its own: the original's stay the original's", async () => {
  const fork = await forkSession(made.dir, made.id);
  const { snapshot } = await loadSnapshotFile(made.dir, fork.id);
  // An empty list, not none: a session without one was saved before hel kept them (stats and the page say so).
  expect(snapshot.requests).toEqual([]);
  expect((await loadSnapshotFile(made.dir, made.id)).snapshot.requests).toHaveLength(7);
});

describe("hel sessions export --format md", () => {
  it("reads as the page does: the turn, each call with its diff or output, the child under its call, the fold's note and span, the dollars", () => {
    const md = exported.md!;
    const order = [
      "# hel session",
      "## Requests and dollars",
      "| #1 task-only | 2 |",
      "## Turns and checkpoints",
      "### Turn 1 (#1)",
      "**→ fold**",
      "**→ search_replace**",
      "```diff",
      "-hello there\n+hello world",
      "**→ delegate_task**",
      "#### Subagent #1 (task-only): completed, 2 requests",
      "**→ read_file**",
      "notes.md asks to **ship it** on Friday.",
      "# Done",
      "## Folds and compactions",
      "learned: a.txt says hello there",
      "hello there",
    ];
    let at = 0;
    for (const piece of order) {
      const found = md.indexOf(piece, at);
      expect(found, `${piece} after ${at}`).toBeGreaterThanOrEqual(0);
      at = found + piece.length;
    }
  });
});

describe("hel sessions export --format atif", () => {
  const schema = JSON.parse(readFileSync(join(import.meta.dirname, "../fixtures/atif/trajectory-v1.4.schema.json"), "utf8"));
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, formats: { "date-time": (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s) } });
  const validate = ajv.compile(schema);
  type Trajectory = {
    session_id: string;
    steps: {
      step_id: number;
      source: string;
      tool_calls?: { tool_call_id: string }[];
      observation?: { results: { source_call_id?: string; subagent_trajectory_ref?: { trajectory_path: string }[] }[] };
      metrics?: { prompt_tokens: number; cached_tokens: number };
    }[];
    extra: { subagents: Trajectory[] };
  };

  /** What Harbor's models check in code: ids from 1 in order, results naming their step's calls, agent-only fields on agent steps. */
  function harborChecks(t: Trajectory): void {
    expect(t.steps.map((s) => s.step_id)).toEqual(t.steps.map((_, i) => i + 1));
    for (const step of t.steps) {
      if (step.source !== "agent") expect(Object.keys(step).filter((k) => ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"].includes(k))).toEqual([]);
      const ids = (step.tool_calls ?? []).map((c) => c.tool_call_id);
      for (const result of step.observation?.results ?? []) expect(ids).toContain(result.source_call_id);
    }
  }

  it("is valid against the format's schema, the parent's and the child's, with each request's tokens as its step's metrics", () => {
    const trajectory = JSON.parse(exported.atif!) as Trajectory;
    const valid = validate(trajectory);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    harborChecks(trajectory);
    const [child] = trajectory.extra.subagents;
    expect(validate(child)).toBe(true);
    harborChecks(child!);

    // The folded read is back where it happened: the history is whole, one agent step per request.
    const agentSteps = trajectory.steps.filter((s) => s.source === "agent");
    expect(agentSteps.map((s) => s.tool_calls?.[0] && (s as { tool_calls: { function_name?: string }[] }).tool_calls[0]!.function_name)).toEqual(["read_file", "fold", "search_replace", "delegate_task", undefined]);
    const parentRequests = sim.requests.filter((_, i) => i !== 4 && i !== 5);
    expect(agentSteps.map((s) => [s.metrics!.prompt_tokens, s.metrics!.cached_tokens])).toEqual(parentRequests.map((r) => [r.usage!.prompt_tokens, r.usage!.prompt_cache_hit_tokens]));
    const delegate = agentSteps[3]!.observation!.results[0]!;
    expect(delegate.subagent_trajectory_ref).toEqual([expect.objectContaining({ session_id: `${made.id}/children/1`, trajectory_path: "#/extra/subagents/0" })]);
    expect(child!.steps.filter((s) => s.source === "agent")).toHaveLength(2);
  });

  it("a trajectory missing a required field fails the schema (the check can fail)", () => {
    const trajectory = JSON.parse(exported.atif!);
    delete trajectory.steps[0].message;
    expect(validate(trajectory)).toBe(false);
  });
});

describe("hel sessions export --format html", () => {
  it("allows only its own inline script and style, by their hashes", () => {
    const html = exported.html!;
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; img-src data:; base-uri 'none'; form-action 'none'$/);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(csp).toContain(`'sha256-${createHash("sha256").update(scripts[0]!).digest("base64")}'`);
  });

  it("shows the model's HTML, images and javascript: links as text", () => {
    const html = exported.html!;
    expect(html).not.toMatch(/<script>window|<img\b|javascript:/i);
    expect(html).toContain("&lt;script&gt;window.__pwned = 1&lt;/script&gt;");
    expect(html).toContain('<a href="https://example.invalid/docs" rel="noreferrer noopener">the docs</a>');
    expect(markdownHtml("[x](JaVaScRiPt:alert(1)) <b onclick=alert(1)>b</b> ![i](data:image/png;base64,AA)")).toBe("<p>x &lt;b onclick=alert(1)&gt;b&lt;/b&gt; [image: i]</p>\n");
  });
});

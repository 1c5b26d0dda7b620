// Isolated children end to end, with real git, hel run in this process against the simulator's parallel
// tool calls: writers each in a worktree of their own, merged into the parent's tree when they end.
// Three disjoint writers all land and leave no hel/ branch or worktree in the project's .git; two writers
// on one line give one `applied` and one `conflict` with nothing of the second applied and its worktree
// kept; a user edit made while a child runs survives the merge; a child's command cannot write the
// parent's tree by absolute path (bwrap); a `full` isolated child's first request is the parent's bytes
// (a cache hit); a child's long output spills to the session's spill/ and the child reads it back; /rewind undoes a merged child; without a repository, child-isolation worktree gets an error result and changes nothing.
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { childTask } from "../../../src/agent/children/child-messages.js";
import { parseAgentFile } from "../../../src/agent/children/named-agent.js";
import type { MergeDetails } from "../../../src/tools/types.js";
import type { ChatRequest } from "../../../src/wire/messages.js";
import { startSimulator, type SimStep, type Simulator } from "../../../sim/index.js";
import { lastUserText } from "../../../sim/policies.js";
import { openTestConversation, runHelInProcess } from "../../helpers/conversation.js";
import { call, childOf, parallelPolicy, toolResults } from "../../helpers/parallel-policy.js";
import { tempProject } from "../../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });

const outsideTmp: string[] = [];
afterAll(async () => Promise.all(outsideTmp.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A repository with one commit of the given files. */
async function repo(files: Record<string, string>, at?: string): Promise<string> {
  const dir = at ?? (await tempProject());
  if (at) outsideTmp.push(at);
  git(dir, "init", "--quiet", "-b", "main");
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  git(dir, "add", "-A");
  git(dir, "commit", "--quiet", "-m", "one");
  return dir;
}

/** The project's git as the user sees it: its branches and worktrees. */
const gitEntries = (dir: string) => ({ branches: git(dir, "branch", "--list", "--format=%(refname:short)").trim().split("\n"), worktrees: git(dir, "worktree", "list", "--porcelain").match(/^worktree /gm)!.length });

const edit = (path: string, from: string, to: string) => call("search_replace", { path, old_text: from, new_text: to });

/** Long enough that a child's first request is still unanswered when its siblings' arrive, their worktrees made. */
const FIRST_DELAY_MS = 2000;

/** A child that makes `first` its first call (answered after `delayMs`), then answers `answer`. */
const writer =
  (first: ReturnType<typeof call>, answer: string, { onFirst, delayMs = 300 }: { onFirst?: () => void; delayMs?: number } = {}) =>
  (results: number): SimStep => {
    if (results > 0) return { content: answer };
    onFirst?.();
    return { faults: [{ kind: "delay", ms: delayMs }], reply: { tool_calls: [first] } };
  };

interface DelegateEnd {
  type: string;
  name?: string;
  details?: MergeDetails;
}

async function run(project: string, args: string[] = []) {
  const result = await runHelInProcess({ args: ["-C", project, "--delegate", "full", "--json-events", ...args, "Do the tasks with subagents at once."], baseUrl: sim.url });
  const events = result.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as DelegateEnd);
  const merges = events.filter((e) => e.type === "tool_end" && e.name === "delegate_task").map((e) => e.details);
  return { result, results: (sim.requests.at(-1)!.body as ChatRequest).messages.filter((m) => m.role === "tool").map((m) => String(m.content)), merges };
}

describe("isolated children", () => {
  it("three disjoint writers all land, each result names its file and `applied`, and .git keeps no hel/ branch or worktree", async () => {
    const project = await repo({ "a.txt": "a: 1\n", "b.txt": "b: 1\n", "c.txt": "c: 1\n" });
    const tasks = ["A", "B", "C"].map((x) => ({ task: `Task ${x}: set ${x.toLowerCase()} to 2 in ${x.toLowerCase()}.txt.`, isolation: "worktree" }));
    sim = await startSimulator({
      policy: parallelPolicy(
        tasks,
        Object.fromEntries(["A", "B", "C"].map((x) => [x, writer(edit(`${x.toLowerCase()}.txt`, `${x.toLowerCase()}: 1`, `${x.toLowerCase()}: 2`), `${x} done`, { delayMs: FIRST_DELAY_MS })])),
      ),
    });
    const { result, results, merges } = await run(project);
    expect(result.code).toBe(0);
    for (const x of ["a", "b", "c"]) expect(await readFile(join(project, `${x}.txt`), "utf8")).toBe(`${x}: 2\n`);
    expect(results).toHaveLength(3);
    for (const [i, text] of results.entries()) {
      const x = ["a", "b", "c"][i]!;
      expect(text).toContain(`${x.toUpperCase()} done\n\nFiles changed in its worktree `);
      expect(text).toContain(`  ${x}.txt +1 -1\nMerge: applied`);
    }
    // The three first requests overlapped, and each is the parent's first request but for its task.
    const firsts = sim.requests.filter((r) => childOf(r.body as ChatRequest) !== null && toolResults(r.body as ChatRequest).length === 0);
    expect(firsts.map((r) => r.overlapping).sort()).toEqual([0, 1, 2]);
    const parentFirst = sim.requests[0]!.body as ChatRequest;
    const parentPrompt = sim.requests[0]!.usage!.prompt_tokens;
    for (const [i, { task }] of tasks.entries()) {
      const first = firsts.find((r) => lastUserText(r.body as ChatRequest) === childTask(task))!;
      expect(JSON.stringify(first.body)).toBe(JSON.stringify({ ...parentFirst, messages: [...parentFirst.messages, { role: "user", content: `[#${i + 2}] ${childTask(task)}` }] }));
      expect(first.usage!.prompt_cache_hit_tokens).toBeGreaterThanOrEqual(Math.floor((parentPrompt - 1) / 64) * 64);
    }
    // --json-events carries each merge as the call's typed details.
    expect(merges.map((d) => [d?.kind, d?.status, d?.files, d?.kept]).sort()).toEqual(["a", "b", "c"].map((x) => ["merge", "applied", [{ path: `${x}.txt`, added: 1, removed: 1 }], false]));
    expect(gitEntries(project)).toEqual({ branches: ["main"], worktrees: 1 });
    expect(await readdir(join(project, ".hel", "worktrees"))).toEqual([]);
  });

  it("two writers on one line: one applied, one conflict with nothing of it applied and its worktree kept", async () => {
    const project = await repo({ "shared.txt": "line: 1\nother: 1\n" });
    const tasks = ["A", "B"].map((x) => ({ task: `Task ${x}: set line to ${x} in shared.txt, and add ${x}.txt.`, isolation: "worktree" }));
    sim = await startSimulator({
      policy: parallelPolicy(tasks, {
        A: (n) => (n === 0 ? { tool_calls: [edit("shared.txt", "line: 1", "line: A"), call("search_replace", { path: "A.txt", old_text: "", new_text: "a\n" })] } : { content: "A done" }),
        // B ends only once A's work is in the project, so A's merge comes first whatever the load.
        B: (n) => {
          if (n === 0) return { tool_calls: [edit("shared.txt", "line: 1", "line: B"), call("search_replace", { path: "B.txt", old_text: "", new_text: "b\n" })] };
          if (!existsSync(join(project, "A.txt"))) return { faults: [{ kind: "delay", ms: 200 }], reply: { tool_calls: [call("run_command", { command: `echo waiting ${n}` })] } };
          return { content: "B done" };
        },
      }),
    });
    const { result, results, merges } = await run(project);
    expect(result.code).toBe(0);
    expect(await readFile(join(project, "shared.txt"), "utf8")).toBe("line: A\nother: 1\n");
    expect(merges.map((d) => [d?.status, d?.kept])).toEqual([
      ["applied", false],
      ["conflict", true],
    ]);
    expect(merges[1]!.conflicts).toEqual([{ path: "shared.txt", kind: "text", ours: ["line: A"], theirs: ["line: B"], truncated: false }]);
    expect(existsSync(join(project, "A.txt"))).toBe(true);
    // Nothing of B: not its line, not its new file.
    expect(existsSync(join(project, "B.txt"))).toBe(false);
    expect(results[0]).toContain("Merge: applied");
    const conflict = results[1]!;
    expect(conflict).toContain("Merge: conflict — nothing of this subagent's work was applied");
    expect(conflict).toMatch(/Conflict in shared\.txt \(the same lines changed on both sides\):\n<<<<<<< project\nline: A\n=======\nline: B\n>>>>>>> subagent/);
    const name = /worktree (\S+):/.exec(conflict)![1]!;
    expect(conflict).toContain(`hel worktrees merge ${name}`);
    expect(conflict).toContain(`hel worktrees rm ${name}`);
    // B's worktree and branch are kept, with its work.
    expect(await readFile(join(project, ".hel", "worktrees", name, "shared.txt"), "utf8")).toBe("line: B\nother: 1\n");
    expect(gitEntries(project).branches).toEqual(["hel/" + name.replace("-", "/"), "main"]);
  });

  it("keeps a user's edit made in the parent's tree while the child runs", async () => {
    const project = await repo({ "notes.txt": "first: 1\nmiddle\nlast: 1\n" });
    const tasks = [{ task: "Task A: set first to 2 in notes.txt.", isolation: "worktree" }];
    const userEdit = () => writeFileSync(join(project, "notes.txt"), "first: 1\nmiddle\nlast: user\n");
    sim = await startSimulator({ policy: parallelPolicy(tasks, { A: writer(edit("notes.txt", "first: 1", "first: 2"), "A done", { onFirst: userEdit }) }) });
    const { result, results } = await run(project);
    expect(result.code).toBe(0);
    expect(results[0]).toContain("Merge: applied");
    expect(await readFile(join(project, "notes.txt"), "utf8")).toBe("first: 2\nmiddle\nlast: user\n");
  });

  it("lets a child's command write its worktree, never the parent's tree by absolute path", async () => {
    // Outside /tmp, which the sandbox replaces with its own: there the parent's tree would be out of sight anyway.
    const project = await repo({ "a.txt": "a: 1\n" }, await mkdtemp(join("/var/tmp", "hel-test-")));
    const tasks = [{ task: "Task A: write files with commands.", isolation: "worktree" }];
    const command = `echo inside > made.txt; echo outside > ${join(project, "a.txt")}; echo status $?`;
    sim = await startSimulator({ policy: parallelPolicy(tasks, { A: (n) => (n === 0 ? { tool_calls: [call("run_command", { command })] } : { content: "A done" }) }) });
    const { result, results } = await run(project);
    expect(result.code).toBe(0);
    const childResult = (sim.requests.find((r) => childOf(r.body as ChatRequest) === "A" && toolResults(r.body as ChatRequest).length === 1)!.body as ChatRequest).messages.at(-1)!.content;
    expect(childResult).toMatch(/Read-only file system|Permission denied/);
    expect(childResult).toContain("status 1");
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("a: 1\n");
    // What it wrote in its worktree was merged.
    expect(await readFile(join(project, "made.txt"), "utf8")).toBe("inside\n");
    expect(results[0]).toContain("  made.txt +1 -0\nMerge: applied");
  });

  it("a child's long command output spills to the session's spill/, and the child reads it back", async () => {
    const project = await repo({ "a.txt": "a: 1\n" });
    const tasks = [{ task: "Task A: count far.", isolation: "worktree" }];
    let spilled = "";
    sim = await startSimulator({
      policy: parallelPolicy(tasks, {
        A: (n, req) => {
          if (n === 0) return { tool_calls: [call("run_command", { command: "seq 1 20000" })] };
          if (n === 1) {
            const read = / read_file (\{"path":"[^"]+"[^}]*\})/.exec(String(toolResults(req)[0]!.content));
            if (read === null) return { content: "no spill" };
            spilled = (JSON.parse(read[1]!) as { path: string }).path;
            return { tool_calls: [call("read_file", { path: spilled, offset: 19_999 })] };
          }
          return { content: "A done" };
        },
      }),
    });
    const { result } = await run(project);
    expect(result.code).toBe(0);
    const childResults = toolResults(sim.requests.findLast((r) => childOf(r.body as ChatRequest) === "A")!.body as ChatRequest).map((m) => String(m.content));
    expect(childResults[0]).toContain("1\n2\n3\n");
    // The spill file is the session's, in the project's .hel/, not in the child's worktree.
    expect(spilled.startsWith(join(project, ".hel", "sessions"))).toBe(true);
    expect(spilled).toMatch(/\/spill\/[^/]+\.txt$/);
    expect(childResults[1]).toMatch(/ 19999\t19999\n 20000\t20000$/);
  });

  it("/rewind undoes a merged child: the turn's checkpoint precedes the merge", async () => {
    const project = await repo({ "a.txt": "a: 1\n" });
    const tasks = [{ task: "Task A: set a to 2 in a.txt.", isolation: "worktree" }];
    sim = await startSimulator({ policy: parallelPolicy(tasks, { A: writer(edit("a.txt", "a: 1", "a: 2"), "A done") }) });
    const open = await openTestConversation({ args: ["-C", project, "--delegate", "full"], sim, interactive: true });
    try {
      expect((await open.instruct("Do the task with a subagent.")).exitReason).toBe("completed");
      expect(await readFile(join(project, "a.txt"), "utf8")).toBe("a: 2\n");
      const undone = await open.conversation.controls.rewindFiles(1);
      expect(undone.map((c) => c.path)).toEqual(["a.txt"]);
      expect(await readFile(join(project, "a.txt"), "utf8")).toBe("a: 1\n");
    } finally {
      await open.close();
    }
  });

  it("without a repository, child-isolation worktree gets an error result that says so and changes nothing", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "a: 1\n");
    const tasks = [{ task: "Task A: set a to 2 in a.txt." }];
    sim = await startSimulator({ policy: parallelPolicy(tasks, { A: writer(edit("a.txt", "a: 1", "a: 2"), "A done") }) });
    const { result, results } = await run(project, ["--child-isolation", "worktree"]);
    expect(result.code).toBe(0);
    expect(results[0]).toContain("the project is not a git repository");
    expect(results[0]).toContain("no subagent was started and nothing was changed");
    expect(sim.requests.filter((r) => childOf(r.body as ChatRequest) !== null)).toEqual([]);
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("a: 1\n");
    // Nor is `isolation` offered where no worktree can be made.
    const delegate = (sim.requests[0]!.body as ChatRequest).tools!.find((t) => t.function.name === "delegate_task")!;
    expect(Object.keys(delegate.function.parameters.properties as object)).toEqual(["task", "max_steps"]);
  });
});

describe("a named agent's isolation", () => {
  it("is read from its front matter, and only none or worktree", () => {
    expect(parseAgentFile("writer", "---\ndescription: writes\nisolation: worktree\n---\nWrite.").isolation).toBe("worktree");
    expect(parseAgentFile("reader", "---\ndescription: reads\n---\nRead.").isolation).toBeUndefined();
    expect(() => parseAgentFile("odd", "---\ndescription: odd\nisolation: container\n---\n")).toThrow("isolation must be one of none, worktree");
  });
});

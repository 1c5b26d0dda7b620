// What a review is shown, from real temporary projects and real git: the commit HEAD is on, read from
// git's files (branches loose and packed, detached, worktrees, no commit yet, no repository); the
// files changed since the session began, by hel's tools or by anything else in a git repository
// (edited, committed, created, deleted; ignored files and .hel/ left out), or only hel's outside git;
// the unified diff made of them, bounded; and the check of the reviewer's JSON answer.
import { execFileSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { parseReview, retryMessage } from "../../src/agent/children/review.js";
import { unifiedDiff, type FileChange } from "../../src/changes/unified-diff.js";
import { gitHead } from "../../src/changes/git-head.js";
import { projectChanges } from "../../src/changes/project-changes.js";
import { tempProject } from "../helpers/temp-project.js";

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "init.defaultBranch=main", ...args], { cwd, env: GIT_ENV, encoding: "utf8" }).trim();

async function repo(files: Record<string, string>): Promise<string> {
  const dir = await tempProject();
  git(dir, "init", "-q");
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "start");
  return dir;
}

describe("gitHead", () => {
  it("reads the commit of a branch, loose or packed, from the repository and from a subdirectory", async () => {
    const dir = await repo({ "a.txt": "a\n", "sub/b.txt": "b\n" });
    const head = git(dir, "rev-parse", "HEAD");
    expect(await gitHead(dir)).toBe(head);
    expect(await gitHead(join(dir, "sub"))).toBe(head);
    git(dir, "pack-refs", "--all", "--prune");
    expect(await gitHead(dir)).toBe(head);
  });

  it("a detached HEAD and a worktree's own HEAD", async () => {
    const dir = await repo({ "a.txt": "a\n" });
    const first = git(dir, "rev-parse", "HEAD");
    await writeFile(join(dir, "a.txt"), "b\n");
    git(dir, "commit", "-q", "-am", "second");
    const worktree = join(await tempProject(), "wt");
    git(dir, "worktree", "add", "-q", "-b", "other", worktree, first);
    expect(await gitHead(worktree)).toBe(first);
    expect(await gitHead(dir)).toBe(git(dir, "rev-parse", "HEAD"));
    git(dir, "checkout", "-q", "--detach", first);
    expect(await gitHead(dir)).toBe(first);
  });

  it("is null outside a repository and before a first commit", async () => {
    expect(await gitHead(await tempProject())).toBeNull();
    const empty = await tempProject();
    git(empty, "init", "-q");
    expect(await gitHead(empty)).toBeNull();
  });
});

/** The changes as the reviewer's diff orders them. */
async function changes(dir: string, commit: string | null, originals: Record<string, string | null>) {
  const found = await projectChanges(dir, { commit, originals: new Map(Object.entries(originals)) });
  return { ...found, files: found.files.sort((a, b) => a.path.localeCompare(b.path)) };
}

describe("projectChanges", () => {
  it("in git: hel's edits from the content it kept, and everything else git sees changed since the commit the session began on", async () => {
    const dir = await repo({ "a.txt": "one\n", "b.txt": "keep\n", "gone.txt": "bye\n", "dirty.txt": "d0\n", ".gitignore": "ignored.log\n" });
    // Changed before the session began, never committed: hel's kept content is the starting point.
    await writeFile(join(dir, "dirty.txt"), "d1\n");
    const start = await gitHead(dir);
    // hel's tools: what they kept before writing, then the write.
    await writeFile(join(dir, "a.txt"), "two\n");
    await writeFile(join(dir, "dirty.txt"), "d2\n");
    await writeFile(join(dir, "new.txt"), "made by search_replace\n");
    // Commands: an edit committed since, a deletion, a new untracked file, an ignored one, hel's own state.
    await writeFile(join(dir, "b.txt"), "changed\n");
    git(dir, "commit", "-q", "-am", "during the session");
    await rm(join(dir, "gone.txt"));
    await writeFile(join(dir, "c.txt"), "made by a command\n");
    await writeFile(join(dir, "ignored.log"), "noise\n");
    await mkdir(join(dir, ".hel"));
    await writeFile(join(dir, ".hel", "state"), "hel's\n");

    expect(await changes(dir, start, { "a.txt": "one\n", "dirty.txt": "d1\n", "new.txt": null })).toEqual({
      files: [
        { path: "a.txt", before: "one\n", after: "two\n" },
        { path: "b.txt", before: "keep\n", after: "changed\n" },
        { path: "c.txt", before: null, after: "made by a command\n" },
        { path: "dirty.txt", before: "d1\n", after: "d2\n" },
        { path: "gone.txt", before: "bye\n", after: null },
        { path: "new.txt", before: null, after: "made by search_replace\n" },
      ],
    });
  });

  it("in git, a project in a subdirectory of the repository sees only its own files, by paths relative to it", async () => {
    const root = await repo({ "outside.txt": "o\n", "proj/in.txt": "i\n" });
    const start = await gitHead(root);
    await writeFile(join(root, "outside.txt"), "changed\n");
    await writeFile(join(root, "proj", "in.txt"), "changed\n");
    expect((await changes(join(root, "proj"), start, {})).files).toEqual([{ path: "in.txt", before: "i\n", after: "changed\n" }]);
  });

  it("outside git: only the files hel's tools wrote, created and since deleted ones included; unchanged ones left out", async () => {
    const dir = await tempProject();
    await writeFile(join(dir, "edited.txt"), "after\n");
    await writeFile(join(dir, "created.txt"), "new\n");
    await writeFile(join(dir, "same.txt"), "same\n");
    await writeFile(join(dir, "untouched.txt"), "changed by a command, unseen\n");
    expect(await changes(dir, null, { "edited.txt": "before\n", "created.txt": null, "deleted.txt": "was here\n", "same.txt": "same\n", "never.txt": null })).toEqual({
      files: [
        { path: "created.txt", before: null, after: "new\n" },
        { path: "deleted.txt", before: "was here\n", after: null },
        { path: "edited.txt", before: "before\n", after: "after\n" },
      ],
    });
  });

  it("a binary or very large file is named, not shown", async () => {
    const dir = await repo({ "img.bin": "\0\x01\x02", "big.txt": "x\n" });
    const start = await gitHead(dir);
    await writeFile(join(dir, "img.bin"), "\0\x03");
    await writeFile(join(dir, "big.txt"), "y".repeat(1024 * 1024 + 1));
    expect((await changes(dir, start, {})).files).toEqual([
      { path: "big.txt", summary: "changed; larger than 1 MB, so not shown" },
      { path: "img.bin", summary: "a binary file changed: not shown" },
    ]);
  });

  it("when git fails, hel's own edits are still shown, with a note saying why the rest is not", async () => {
    const dir = await repo({ "a.txt": "one\n" });
    await writeFile(join(dir, "a.txt"), "two\n");
    const found = await changes(dir, "0".repeat(40), { "a.txt": "one\n" });
    expect(found.files).toEqual([{ path: "a.txt", before: "one\n", after: "two\n" }]);
    expect(found.note).toMatch(/^git could not be run \(.+\), so only the files hel's own tools edited are shown$/);
  });
});

describe("unifiedDiff", () => {
  const changed: FileChange[] = [
    { path: "src/z.ts", before: "a\nb\nc\n", after: "a\nB\nc\n" },
    { path: "new.txt", before: null, after: "hello\n" },
    { path: "old.txt", before: "bye\n", after: null },
    { path: "logo.png", summary: "a binary file changed: not shown" },
  ];

  // The first two files in path order: 66 and 91 characters.
  const FIRST_TWO = ["diff --git a/logo.png b/logo.png", "a binary file changed: not shown", "diff --git a/new.txt b/new.txt", "new file", "--- /dev/null", "+++ b/new.txt", "@@ -0,0 +1,1 @@", "+hello"];

  const signal = new AbortController().signal;

  it("one file after another in path order, with git's headers and three lines of context", async () => {
    expect(await unifiedDiff(changed, 10_000, signal)).toBe(
      [
        ...FIRST_TWO,
        "diff --git a/old.txt b/old.txt",
        "deleted file",
        "--- a/old.txt",
        "+++ /dev/null",
        "@@ -1,1 +0,0 @@",
        "-bye",
        "diff --git a/src/z.ts b/src/z.ts",
        "--- a/src/z.ts",
        "+++ b/src/z.ts",
        "@@ -1,3 +1,3 @@",
        " a",
        "-b",
        "+B",
        " c",
        "",
      ].join("\n"),
    );
  });

  it("stops at its size limit (here after the first two) and names the files it leaves out", async () => {
    const text = await unifiedDiff(changed, 160, signal);
    expect(text).toBe([...FIRST_TWO, "(The diff stops here, at its size limit. Also changed, not shown: old.txt, src/z.ts. Read them with your tools.)", ""].join("\n"));
  });
});

describe("unifiedDiff of large rewrites", () => {
  const signal = new AbortController().signal;
  const lines = (n: number, text: (i: number) => string) => Array.from({ length: n }, (_, i) => `${text(i)}\n`).join("");

  it("shows a rewrite past its cost limit as its changed region removed and added whole, a patch that still applies", async () => {
    const keep = lines(5, (i) => `kept ${i}`);
    const before = `${keep}${lines(3000, (i) => `old line ${i}`)}${keep}tail`;
    const after = `${keep}${lines(2500, (i) => `new row ${i}`)}${keep}tail`;
    const text = await unifiedDiff([{ path: "big.txt", before, after }], 1_000_000, signal);
    const [head, note, ...patch] = text.split("\n");
    expect([head, note]).toEqual(["diff --git a/big.txt b/big.txt", "(too many differences to align line by line: the changed region is shown removed and added whole)"]);
    expect(patch.slice(0, 6)).toEqual(["--- a/big.txt", "+++ b/big.txt", "@@ -3,3006 +3,2506 @@", " kept 2", " kept 3", " kept 4"]);
    expect(patch.filter((l) => l.startsWith("-") && !l.startsWith("---"))).toHaveLength(3000);
    expect(patch.filter((l) => l.startsWith("+") && !l.startsWith("+++"))).toHaveLength(2500);
    expect(applyPatch(before, patch.join("\n"))).toBe(after);
  });

  it("aligns a small change in a large file line by line", async () => {
    const before = lines(20_000, (i) => `line ${i}`);
    const after = before.replace("line 700\n", "LINE 700\n");
    const text = await unifiedDiff([{ path: "big.txt", before, after }], 1_000_000, signal);
    expect(text).toBe(
      ["diff --git a/big.txt b/big.txt", "--- a/big.txt", "+++ b/big.txt", "@@ -698,7 +698,7 @@", " line 697", " line 698", " line 699", "-line 700", "+LINE 700", " line 701", " line 702", " line 703", ""].join("\n"),
    );
  });

  it("stops when the call is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(unifiedDiff([{ path: "a", before: "x\n", after: "y\n" }], 1000, controller.signal)).rejects.toThrow(/aborted/);
  });
});

describe("parseReview", () => {
  it("takes the review JSON, a missing path or line as null, and forgives a code fence around it", () => {
    const review = { verdict: "incorrect", findings: [{ title: "Claims outside the transaction", body: "…", path: "worker.py", line: 12, priority: 0 }] };
    expect(parseReview(JSON.stringify(review))).toEqual({ review });
    expect(parseReview("```json\n" + JSON.stringify(review) + "\n```")).toEqual({ review });
    expect(parseReview('{"verdict":"correct","findings":[{"title":"t","body":"b","priority":3}]}')).toEqual({
      review: { verdict: "correct", findings: [{ title: "t", body: "b", path: null, line: null, priority: 3 }] },
    });
  });

  it.each([
    ["prose", "Looks good to me.", /^it is not JSON \(/],
    ["JSON after prose", 'Here it is: {"verdict":"correct","findings":[]}', /^it is not JSON \(/],
    ["another verdict", '{"verdict":"fine","findings":[]}', /^verdict: /],
    ["a priority out of range", '{"verdict":"correct","findings":[{"title":"t","body":"b","path":"a","line":1,"priority":4}]}', /^findings\.0\.priority: /],
    ["no findings list", '{"verdict":"correct"}', /^findings: /],
    ["a list", "[]", /^the answer: /],
  ])("says what is wrong with %s", (_name, answer, problem) => {
    const parsed = parseReview(answer);
    expect("problem" in parsed && parsed.problem).toMatch(problem);
  });

  it("the retry names the problem and the shape", () => {
    expect(retryMessage("verdict: bad")).toBe(
      'Your answer is not the JSON object asked for: verdict: bad. Answer again with only that JSON object, with no text before or after it and no code fence: {"verdict": "correct" | "incorrect", "findings": [{"title": "…", "body": "…", "path": "src/x.ts", "line": 12, "priority": 0}]}',
    );
  });
});

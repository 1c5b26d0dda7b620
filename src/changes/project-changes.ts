// What changed in the project since its session began, file by file, for review_changes. A file's
// content then is what hel's tools kept before they first wrote it, or else, in a git repository, the
// file in the commit the session began on; its content now is read from disk. In a git repository the
// files compared are also every one git sees changed since that commit (tracked, deleted, and new ones
// it does not ignore), so what commands changed is included; outside one, the files hel's tools wrote.
// hel's own .hel/ is never part of it. Loaded only for a review: it is the one place that runs git.
import { spawn } from "node:child_process";
import { lstat, readFile, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import type { ProjectChanges } from "./unified-diff.js";
import type { FileChange } from "./unified-diff.js";

/** Larger files are named as changed, not shown. */
export const MAX_SHOWN_FILE_BYTES = 1024 * 1024;

/** A file's content, null when it does not exist, or why it cannot be shown. */
type Version = string | null | { summary: string };

export interface SessionStart {
  /** The commit HEAD was on when the session began; null outside git (or before a first commit). */
  commit: string | null;
  /** Each file's content before hel's tools first wrote it (null: it did not exist), by project path. */
  originals: ReadonlyMap<string, string | null>;
}

export async function projectChanges(projectDir: string, start: SessionStart): Promise<ProjectChanges> {
  let committed = new Map<string, Version>();
  let note: string | undefined;
  if (start.commit) {
    try {
      committed = await changedSinceCommit(projectDir, start.commit, start.originals);
    } catch (error) {
      note = `git could not be run (${error instanceof Error ? error.message.split("\n")[0] : String(error)}), so only the files hel's own tools edited are shown`;
    }
  }
  const realProject = await realpath(projectDir);
  const files: FileChange[] = [];
  for (const path of new Set([...start.originals.keys(), ...committed.keys()])) {
    if (path === ".hel" || path.startsWith(".hel/")) continue;
    const before = start.originals.has(path) ? start.originals.get(path)! : committed.get(path)!;
    const change = changeOf(path, before, await currentVersion(realProject, path));
    if (change) files.push(change);
  }
  return { files, ...(note ? { note } : {}) };
}

function changeOf(path: string, before: Version, after: Version): FileChange | null {
  if (before === after) return null;
  if (after !== null && typeof after === "object") return { path, summary: after.summary };
  if (before !== null && typeof before === "object") return { path, summary: before.summary };
  return { path, before, after };
}

/** Every path git sees changed since `commit`, with its content in that commit (null: not in it). */
async function changedSinceCommit(projectDir: string, commit: string, originals: ReadonlyMap<string, unknown>): Promise<Map<string, Version>> {
  const tracked = await git(projectDir, ["diff", "--name-only", "-z", "--no-renames", "--relative", commit, "--"]);
  const untracked = await git(projectDir, ["ls-files", "--others", "--exclude-standard", "-z"]);
  // cat-file reads one name a line, so a name with a line break cannot be asked for.
  const paths = [...new Set([...names(tracked), ...names(untracked)])].filter((p) => !p.includes("\n"));
  const wanted = paths.filter((p) => !originals.has(p));
  const contents = wanted.length === 0 ? [] : parseBatch(await git(projectDir, ["cat-file", "--batch"], wanted.map((p) => `${commit}:./${p}\n`).join("")));
  const versions = new Map<string, Version>(paths.map((p) => [p, null]));
  wanted.forEach((p, i) => versions.set(p, contents[i] ?? null));
  return versions;
}

const names = (output: Buffer): string[] =>
  output
    .toString("utf8")
    .split("\0")
    .filter((n) => n !== "");

/** `git cat-file --batch` output: for each name asked, its blob's content, or null (missing, or not a file). */
function parseBatch(output: Buffer): Version[] {
  const versions: Version[] = [];
  let at = 0;
  while (at < output.length) {
    const lineEnd = output.indexOf(0x0a, at);
    if (lineEnd === -1) break;
    const header = output.toString("utf8", at, lineEnd).split(" ");
    at = lineEnd + 1;
    const size = Number(header.at(-1));
    if (header.length !== 3 || !Number.isInteger(size)) {
      versions.push(null);
      continue;
    }
    versions.push(header[1] === "blob" ? shown(output.subarray(at, at + size)) : null);
    at += size + 1;
  }
  return versions;
}

async function currentVersion(realProject: string, path: string): Promise<Version> {
  const abs = join(realProject, path);
  const info = await lstat(abs).catch(() => null);
  if (!info) return null;
  // Through symlinks as the tools go, but never out of the project.
  const real = await realpath(abs).catch(() => null);
  if (real === null) return null;
  const rel = relative(realProject, real);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return { summary: "leads out of the project through a symlink: not shown" };
  const target = await lstat(real);
  if (!target.isFile()) return null;
  if (target.size > MAX_SHOWN_FILE_BYTES) return { summary: "changed; larger than 1 MB, so not shown" };
  return shown(await readFile(real));
}

function shown(bytes: Buffer): Version {
  if (bytes.length > MAX_SHOWN_FILE_BYTES) return { summary: "changed; larger than 1 MB, so not shown" };
  if (bytes.subarray(0, 8192).includes(0)) return { summary: "a binary file changed: not shown" };
  return bytes.toString("utf8");
}

/** Runs git in the project, without hel's secrets in its environment and without optional locks. */
function git(cwd: string, args: string[], input = ""): Promise<Buffer> {
  const env: NodeJS.ProcessEnv = { GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" };
  for (const [name, value] of Object.entries(process.env)) {
    if (!/KEY|SECRET|TOKEN|PASSWORD/i.test(name) && !(name in env)) env[name] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["-c", "core.fsmonitor=false", ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(err.trim() || `git ${args[0]} exited with ${code}`))));
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
}

// The files inside the project that hooks and MCP servers would run, so that trust covers programs and
// not only the text of settings. For an entry that runs in the project (a trusted project's own): each
// file a word of its command names (`./scripts/fmt.sh`, `node tools/server.js`, `--config=x.js`); for a
// word that is a program or package name, `node_modules/.bin/<name>` and the whole package it resolves
// to, and `node_modules/<package>`, which `npx <package>` would take; and where the command names npm,
// npx, yarn or pnpm, the project's package.json and .npmrc, which they read. For the user's own entries,
// which run outside the project (tools/program-place.ts), only an absolute path into the project. What
// those files load in turn (a script's imports) is not followed. Trust hashes the list (a change asks
// again, trust.ts) and the sandbox keeps it read-only (readOnlyProgramPaths).
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { isInside } from "../tools/paths.js";
import type { HooksConfig } from "../hooks/hook-config.js";
import type { ServerMap } from "../mcp/config.js";

/** One file a setting runs: where it was named or found and where it really is (project-relative, or absolute outside), and its content's hash. */
export interface ProgramFile {
  path: string;
  real: string;
  sha256: string;
}

export interface Programs {
  files: ProgramFile[];
  /** Project-relative paths to keep read-only: each file as named and as it really is, and each package's folder. */
  paths: string[];
}

/** A config's hooks and servers (a ConfigFile as trust.ts gives it, or a run's hooks and options.mcpServers): checked entries. */
export interface ProgramSettings {
  hooks?: HooksConfig | undefined;
  "mcp-servers"?: Readonly<Record<string, unknown>> | undefined;
}

/** A package of more files than this is hashed up to here, and its rest named as cut: a change past the bound goes unseen. */
const MAX_PACKAGE_FILES = 20_000;
/** Of all the files, this many bytes are hashed; a file past it is named with its size only, so a start never reads without end. */
const MAX_HASHED_BYTES = 256 * 1024 * 1024;
const PACKAGE_MANAGERS = new Set(["npm", "npx", "yarn", "pnpm"]);

/** What the settings' hooks and servers run inside the project. */
export async function programFiles(projectDir: string, settings: ProgramSettings, hashed = true): Promise<Programs> {
  const found = new Found(projectDir, hashed);
  for (const { words, inProject } of entriesOf(settings)) {
    for (const word of words.flatMap((w) => [w, ...(w.startsWith("-") && w.includes("=") ? [w.slice(w.indexOf("=") + 1)] : [])])) {
      if (word === "" || word.startsWith("-")) continue;
      if (isAbsolute(word)) await found.file(word);
      else if (inProject) {
        await found.file(resolve(projectDir, word));
        const name = packageName(word);
        if (name !== null) {
          await found.binEntry(basename(name));
          await found.packageDir(join(projectDir, "node_modules", name));
        }
      }
    }
    if (inProject && words.some((w) => PACKAGE_MANAGERS.has(basename(w)))) {
      await found.file(join(projectDir, "package.json"));
      await found.file(join(projectDir, ".npmrc"));
    }
  }
  // A package's folder stands for the files in it: the sandbox keeps one path read-only, not thousands.
  const folders = [...found.packages].map((dir) => `${dir}${sep}`);
  const paths = [...found.paths].filter((path) => !folders.some((folder) => path.startsWith(folder)));
  return { files: [...found.files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), paths: paths.sort() };
}

/** For the sandbox: the paths (files and package folders) of what the config's hooks and MCP servers run, to keep read-only; nothing is hashed. */
export async function readOnlyProgramPaths(projectDir: string, config: ProgramSettings): Promise<string[]> {
  return (await programFiles(projectDir, config, false)).paths.map((path) => resolve(projectDir, path));
}

/** Each hook's and stdio server's words, and whether it runs in the project. */
function entriesOf(settings: ProgramSettings): { words: string[]; inProject: boolean }[] {
  const hooks = Object.values(settings.hooks ?? {}).flatMap((list) => (list ?? []).map((hook) => ({ words: shellWords(hook.command), inProject: hook.inProject === true })));
  const servers = Object.values((settings["mcp-servers"] ?? {}) as ServerMap).flatMap((s) => (s.type === "http" ? [] : [{ words: [s.command, ...(s.args ?? [])], inProject: s.inProject === true }]));
  return [...hooks, ...servers];
}

/** The words of a shell command, roughly: split at blanks and operators, quotes dropped. Over-reading only hashes more. */
function shellWords(command: string): string[] {
  return command
    .replace(/["']/g, " ")
    .split(/[\s;|&()<>`$]+/)
    .filter(Boolean);
}

/** The package a word names (`prettier`, `@scope/pkg@1.2`), without its version; null for a word that cannot be one. */
function packageName(word: string): string | null {
  const name = word.replace(/^(@[^/@]+\/[^/@]+|[^/@]+)@.*$/, "$1");
  return /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name) && !name.startsWith(".") ? name : null;
}

class Found {
  readonly files = new Map<string, ProgramFile>();
  readonly paths = new Set<string>();
  /** The packages' folders, as shown (project-relative). */
  readonly packages = new Set<string>();
  private bytesLeft = MAX_HASHED_BYTES;

  /** `hashed` false: the files are found and listed, not read. */
  constructor(
    private readonly projectDir: string,
    private readonly hashed: boolean,
  ) {}

  /** A regular file at `abs` inside the project (itself or through a link), hashed; anything else, nothing. */
  async file(abs: string): Promise<string | null> {
    if (!isInside(this.projectDir, abs) || abs === this.projectDir) return null;
    const real = await realpath(abs).catch(() => null);
    const info = real === null ? null : await stat(real).catch(() => null);
    if (real === null || !info?.isFile()) return null;
    const path = this.shown(abs);
    if (!this.files.has(path)) {
      const hashed = this.hashed && info.size <= this.bytesLeft;
      this.bytesLeft -= hashed ? info.size : 0;
      const sha256 = hashed ? await sha256Of(real) : `not hashed, ${info.size} bytes`;
      this.files.set(path, { path, real: this.shown(real), sha256 });
      this.paths.add(path);
      if (isInside(this.projectDir, real)) this.paths.add(this.shown(real));
    }
    return real;
  }

  /** `node_modules/.bin/<name>` and the package its link leads to. */
  async binEntry(name: string): Promise<void> {
    const real = await this.file(join(this.projectDir, "node_modules", ".bin", name));
    if (real === null) return;
    for (let dir = dirname(real); isInside(this.projectDir, dir) && dir !== this.projectDir; dir = dirname(dir)) {
      const parent = basename(dirname(dir));
      if (parent === "node_modules" || (parent.startsWith("@") && basename(dirname(dirname(dir))) === "node_modules")) return this.packageDir(dir);
    }
  }

  /** Every file of a package's folder, links to files followed, bounded. */
  async packageDir(named: string): Promise<void> {
    if (!isInside(this.projectDir, named)) return;
    // pnpm links node_modules/<name> to its store in node_modules/.pnpm/.
    const dir = await realpath(named).catch(() => null);
    if (dir === null || !isInside(this.projectDir, dir) || this.packages.has(this.shown(dir))) return;
    if (
      !(await stat(dir).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    )
      return;
    for (const path of [this.shown(named), this.shown(dir)]) {
      this.paths.add(path);
      this.packages.add(path);
    }
    // The sandbox keeps the folder read-only as a whole: only trust reads the files in it.
    if (!this.hashed) return;
    let count = 0;
    const walk = async (folder: string): Promise<boolean> => {
      const names = (await readdir(folder).catch(() => [] as string[])).sort();
      for (const name of names) {
        const abs = join(folder, name);
        const info = await lstat(abs).catch(() => null);
        if (info === null) continue;
        if (info.isDirectory()) {
          if (!(await walk(abs))) return false;
          continue;
        }
        if (++count > MAX_PACKAGE_FILES) {
          this.files.set(`${this.shown(dir)}${sep}…`, { path: `${this.shown(dir)}${sep}…`, real: "", sha256: "cut" });
          return false;
        }
        await this.file(abs);
      }
      return true;
    };
    await walk(dir);
  }

  private shown(abs: string): string {
    return isInside(this.projectDir, abs) ? relative(this.projectDir, abs) : abs;
  }
}

function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  return new Promise((done, failed) =>
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => done(hash.digest("hex")))
      .on("error", failed),
  );
}

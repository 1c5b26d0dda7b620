// The .gitignore rules in force at one point of a walk down the project, as git applies them: each
// directory's .gitignore speaks about the paths below that directory, a deeper file overrides a
// shallower one (its `!pattern` can re-include what a parent's rule excluded), and the last matching
// line of a file wins. The walk never enters an ignored directory, so what git says about files in
// excluded directories (they cannot be re-included) holds by construction.
import ignore, { type Ignore } from "ignore";

/** Git matches case-insensitively where the file system is (core.ignorecase on macOS and Windows). */
const IGNORE_CASE = process.platform === "darwin" || process.platform === "win32";
/**
 * The `ignore` package remembers every answer it gives, so over a large tree its cache would grow with
 * the tree; a level's matcher is rebuilt from its text after this many questions, keeping memory flat.
 */
const QUESTIONS_PER_MATCHER = 4096;

class Level {
  private matcher: Ignore;
  private asked = 0;

  constructor(
    /** Project-relative directory of the .gitignore, "" for the project root; paths below it start with `prefix`. */
    readonly prefix: string,
    private readonly text: string,
  ) {
    this.matcher = ignore({ ignorecase: IGNORE_CASE }).add(text);
  }

  /** true: ignored here; false: re-included here; null: this file says nothing about the path. */
  verdict(rel: string, isDir: boolean): boolean | null {
    if (++this.asked > QUESTIONS_PER_MATCHER) {
      this.matcher = ignore({ ignorecase: IGNORE_CASE }).add(this.text);
      this.asked = 1;
    }
    const own = rel.slice(this.prefix.length);
    const result = this.matcher.test(isDir ? `${own}/` : own);
    return result.ignored ? true : result.unignored ? false : null;
  }
}

export class IgnoreRules {
  private readonly levels: Level[] = [];

  /** Adds the rules of the .gitignore in `dir` (project-relative, "" for the root); undo with pop(). */
  push(dir: string, text: string): void {
    this.levels.push(new Level(dir === "" ? "" : `${dir}/`, text));
  }

  pop(): void {
    this.levels.pop();
  }

  /** Forgets every rule so far: a search the model pointed into an ignored directory searches it. */
  clear(): void {
    this.levels.length = 0;
  }

  /** Whether `rel` (project-relative, inside every pushed directory) is ignored. */
  ignores(rel: string, isDir: boolean): boolean {
    for (let i = this.levels.length - 1; i >= 0; i--) {
      const verdict = this.levels[i]!.verdict(rel, isDir);
      if (verdict !== null) return verdict;
    }
    return false;
  }
}

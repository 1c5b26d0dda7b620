// Globs as grep's `glob` and find_files' `pattern` take them (picomatch syntax: `*`, `**`, `?`, `[ab]`,
// `{ts,tsx}`). A glob without "/" matches a file's name wherever the file is ("*.ts"); one with "/" matches
// the path below the searched directory or the project-relative path, whichever the model meant
// ("src/**/*.ts" finds the same files whether or not the search was given path "src"). Dot files
// match like any other, since a project's `.github/` or `.eslintrc` is part of it.
import picomatch from "picomatch";
import { ToolError } from "../types.js";

/** For a model whose glob matched nothing. */
export const GLOB_FORMS = 'A glob without "/" matches file names ("*.ts"); one with "/" matches paths ("src/**/*.ts").';

export type PathMatcher = (rel: string) => boolean;

/** `rootRel` is the searched directory, project-relative ("." for the project). */
export function globMatcher(glob: string, rootRel: string): PathMatcher {
  const cleaned = glob.trim().replace(/^(\.\/|\/)+/, "");
  if (cleaned === "") throw new ToolError(`the glob ${JSON.stringify(glob)} is empty: give one such as "*.ts" or "src/**/*.test.ts"`);
  let compiled: (p: string) => boolean;
  try {
    compiled = picomatch(cleaned, { dot: true });
  } catch (e) {
    throw new ToolError(`the glob ${JSON.stringify(glob)} is not valid (${e instanceof Error ? e.message : String(e)}): write one such as "*.ts" or "src/**/*.test.ts"`);
  }
  if (!cleaned.includes("/")) return (rel) => compiled(rel.slice(rel.lastIndexOf("/") + 1));
  if (rootRel === ".") return compiled;
  const prefix = `${rootRel}/`;
  return (rel) => compiled(rel) || (rel.startsWith(prefix) && compiled(rel.slice(prefix.length)));
}

// No exported value that nothing imports: an export is a promise that another file uses it, and one
// that nothing uses is dead code or a leftover of a move. Every file of the repository counts as a
// user (a test, the bench or the evals may be the one reader of a value). Types are not values and are
// not held to this: a type exported beside its function documents that function's contract.
import { readFileSync } from "node:fs";
import { posix, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { readSources } from "./helpers/import-graph.js";

const ROOT = resolve(import.meta.dirname, "..");
const FOLDERS = ["src", "sim", "evals", "bench", "scripts", "test"];
// Values a test takes by require() in a child process, which no import shows.
const TAKEN_BY_CHILD_PROCESSES = new Set(["src/bin/compile-cache.cts: ChunkLoader"]);
const COMPILED_TO_SOURCE: Record<string, string> = { ".js": ".ts", ".cjs": ".cts", ".mjs": ".mts" };

function repository(): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of FOLDERS) for (const [file, text] of readSources(resolve(ROOT, dir))) files.set(`${dir}/${file}`, text);
  return files;
}

const hasExport = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The values a file exports under their own names (not re-exports, not types). */
function exportedValues(source: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!hasExport(statement)) {
      if (ts.isExportDeclaration(statement) && !statement.moduleSpecifier && !statement.isTypeOnly && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) if (!element.isTypeOnly) names.push(element.name.text);
      }
      continue;
    }
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text);
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name) {
      names.push(statement.name.text);
    }
  }
  return names;
}

/** Which names each file's imports take from which file; `*` for a namespace or a dynamic import. */
function importedNames(files: ReadonlyMap<string, string>): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  const use = (file: string, name: string) => used.set(file, (used.get(file) ?? new Set()).add(name));
  const target = (from: string, specifier: string): string | null => {
    if (!specifier.startsWith(".")) return null;
    const path = posix.normalize(posix.join(posix.dirname(from), specifier));
    const extension = posix.extname(path);
    const file = extension in COMPILED_TO_SOURCE ? path.slice(0, -extension.length) + COMPILED_TO_SOURCE[extension] : path;
    return files.has(file) ? file : null;
  };
  for (const [from, text] of files) {
    const source = ts.createSourceFile(from, text, ts.ScriptTarget.Latest, false);
    const visit = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        const to = target(from, node.moduleSpecifier.text);
        if (to) {
          const clause = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
          if (!clause || ts.isNamespaceImport(clause) || ts.isNamespaceExport(clause)) use(to, "*");
          else for (const element of clause.elements) use(to, (element.propertyName ?? element.name).text);
          if (ts.isImportDeclaration(node) && node.importClause?.name) use(to, "default");
        }
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [argument] = node.arguments;
        const to = argument && ts.isStringLiteral(argument) ? target(from, argument.text) : null;
        if (to) use(to, "*");
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return used;
}

describe("exports", () => {
  it("every value src/ exports is imported by another file", () => {
    const files = repository();
    const used = importedNames(files);
    const unused: string[] = [];
    for (const [file, text] of files) {
      if (!file.startsWith("src/")) continue;
      const taken = used.get(file) ?? new Set();
      if (taken.has("*")) continue;
      for (const name of exportedValues(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false))) if (!taken.has(name) && !TAKEN_BY_CHILD_PROCESSES.has(`${file}: ${name}`)) unused.push(`${file}: ${name}`);
    }
    expect(unused).toEqual([]);
  });

  it("sees what a file exports and what others take of it", () => {
    const files = new Map([
      ["src/a.ts", "export const one = 1;\nexport function two() {}\nexport type Three = 3;\nconst four = 4;\nexport { four };\n"],
      ["src/b.ts", 'import { one } from "./a.js";\nexport { two } from "./a.js";\n'],
      ["src/c.ts", 'const m = await import("./b.js");\n'],
    ]);
    expect(exportedValues(ts.createSourceFile("a.ts", files.get("src/a.ts")!, ts.ScriptTarget.Latest))).toEqual(["one", "two", "four"]);
    const used = importedNames(files);
    expect([...(used.get("src/a.ts") ?? [])]).toEqual(["one", "two"]);
    expect([...(used.get("src/b.ts") ?? [])]).toEqual(["*"]);
    expect(readFileSync(resolve(ROOT, "src/zod.ts"), "utf8")).toContain("export { z }");
  });
});

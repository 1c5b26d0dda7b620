// The import graph of a source tree, and the two rules test/layers.test.ts holds src/ to: imports
// point only down a table of layers, and no file reaches itself through its imports. Imports are read
// with TypeScript's own import scanner, so an import inside a comment or a string is not one; static
// imports (type-only ones too), `export ... from` and dynamic `import()` all count. Files are given as
// paths relative to the tree's root, with "/" between folders, so the rules are pure functions.
import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import ts from "typescript";

export interface ImportEdge {
  from: string;
  to: string;
  /** 1-based line of the import in `from`. */
  line: number;
  /** An `import()` expression, which loads its module only when it runs. */
  dynamic: boolean;
}

export interface ImportGraph {
  edges: ImportEdge[];
  /** Relative imports that name no file of the tree, as "file:line → specifier". */
  unresolved: string[];
}

const SOURCE = /\.(ts|cts|mts)$/;
// Sources import each other by the name of the file they compile to.
const COMPILED_TO_SOURCE: Record<string, string> = { ".js": ".ts", ".cjs": ".cts", ".mjs": ".mts" };

/** Every TypeScript file under `dir`, by its path relative to `dir`. */
export function readSources(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !SOURCE.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(
      path
        .slice(dir.length + 1)
        .split("\\")
        .join("/"),
      readFileSync(path, "utf8"),
    );
  }
  return files;
}

export function importGraph(files: ReadonlyMap<string, string>): ImportGraph {
  const edges: ImportEdge[] = [];
  const unresolved: string[] = [];
  for (const [from, source] of files) {
    for (const imported of ts.preProcessFile(source, true, true).importedFiles) {
      const specifier = imported.fileName;
      if (!specifier.startsWith("./") && !specifier.startsWith("../")) continue; // a package or node: built-in
      const line = source.slice(0, imported.pos).split("\n").length;
      const target = posix.normalize(posix.join(posix.dirname(from), specifier));
      const extension = posix.extname(target);
      const to = extension in COMPILED_TO_SOURCE ? target.slice(0, -extension.length) + COMPILED_TO_SOURCE[extension] : target;
      const dynamic = /import\s*\(\s*$/.test(source.slice(Math.max(0, imported.pos - 20), imported.pos));
      if (files.has(to)) edges.push({ from, to, line, dynamic });
      else unresolved.push(`${from}:${line} → ${specifier}`);
    }
  }
  return { edges, unresolved };
}

/** A file's layer: its top folder, or "." for a file at the root of the tree. */
export const layerOf = (file: string): string => (file.includes("/") ? file.slice(0, file.indexOf("/")) : ".");

/**
 * Imports that do not point down. `layers` lists the layers from the bottom up; the names in one entry
 * share a level and do not import each other. A file may import its own layer's files and any lower
 * layer's. A layer missing from the table is reported too, so a new folder gets a place on purpose.
 * A name may also be a file at the top of the tree ("run.ts"): it is then a layer of its own, apart
 * from ".", for the one file that sits above a folder beside it.
 */
export function layerViolations(graph: ImportGraph, layers: readonly (readonly string[])[]): string[] {
  const level = new Map<string, number>();
  layers.forEach((names, i) => names.forEach((name) => level.set(name, i)));
  const layerOfFile = (file: string) => (level.has(file) ? file : layerOf(file));
  const shown = (layer: string) => (SOURCE.test(layer) ? layer : `${layer}/`);
  const problems = new Set<string>();
  for (const { from, to, line } of graph.edges) {
    const [a, b] = [layerOfFile(from), layerOfFile(to)];
    for (const layer of [a, b]) if (!level.has(layer)) problems.add(`${layer}/ has no place in the layer table`);
    if (a === b || !level.has(a) || !level.has(b)) continue;
    if (level.get(b)! >= level.get(a)!) problems.add(`${from}:${line} imports ${to}: ${shown(a)} may not import ${shown(b)}, which is not below it`);
  }
  return [...problems];
}

/**
 * The part of a graph inside one folder (`room`), with paths relative to it, so that layerViolations
 * can hold the folders inside a room to a table of their own (the room's own files are its layer ".").
 */
export function roomGraph(graph: ImportGraph, room: string): ImportGraph {
  const prefix = `${room}/`;
  const inside = (file: string) => file.startsWith(prefix);
  const edges = graph.edges.filter((e) => inside(e.from) && inside(e.to)).map((e) => ({ ...e, from: e.from.slice(prefix.length), to: e.to.slice(prefix.length) }));
  return { edges, unresolved: [] };
}

/**
 * Imports that pass a room's door: a file outside `room` may import only `doors` of it, and `lazy`
 * files of the room may be imported only dynamically (by `import()`), so loading the door does not load them.
 */
export function doorViolations(graph: ImportGraph, room: string, doors: readonly string[], lazy: (file: string) => boolean): string[] {
  const inside = (file: string) => file.startsWith(`${room}/`);
  const problems: string[] = [];
  for (const { from, to, line, dynamic } of graph.edges) {
    if (!inside(to)) continue;
    if (!inside(from) && !doors.includes(to)) problems.push(`${from}:${line} imports ${to}: outside ${room}/ only ${doors.join(", ")} may be imported`);
    if (lazy(to) && !lazy(from) && !dynamic) problems.push(`${from}:${line} imports ${to} statically: it is loaded only on first use`);
  }
  return problems;
}

/**
 * Files of `room` that reach a file of one of `forbidden`'s folders, directly or through the files
 * they import, each as the path of imports that gets there ("a → b → c"): a room that must not know
 * those folders may not lean on a file that does either.
 */
export function reachViolations(graph: ImportGraph, room: string, forbidden: readonly string[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of graph.edges) next.set(from, [...(next.get(from) ?? []), to]);
  const banned = (file: string) => forbidden.some((folder) => file.startsWith(`${folder}/`));
  const problems: string[] = [];
  for (const start of [...next.keys()].filter((file) => file.startsWith(`${room}/`)).sort()) {
    const cameFrom = new Map<string, string>([[start, start]]);
    const queue = [start];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      if (banned(file)) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        problems.push(path.join(" → "));
        break;
      }
      for (const to of next.get(file) ?? []) {
        if (cameFrom.has(to)) continue;
        cameFrom.set(to, file);
        queue.push(to);
      }
    }
  }
  return problems;
}

/** Every cycle between files, each as "a → b → … → a" from its alphabetically first file; none when empty. */
export function importCycles(graph: ImportGraph): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of graph.edges) next.set(from, [...(next.get(from) ?? []), to]);
  // Tarjan's strongly connected components: a component of more than one file, or a file that imports
  // itself, holds a cycle; one cycle through its first file is shown.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1 || (next.get(file) ?? []).includes(file)) components.push(component.sort());
  };
  for (const file of [...next.keys()].sort()) if (!index.has(file)) visit(file);
  return components.map((component) => cycleThrough(component[0]!, new Set(component), next).join(" → ")).sort();
}

/** The shortest path from `start` back to itself inside one component. */
function cycleThrough(start: string, component: ReadonlySet<string>, next: ReadonlyMap<string, string[]>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i]!;
    for (const to of next.get(file) ?? []) {
      if (!component.has(to)) continue;
      if (to === start) {
        const path: string[] = [];
        for (let at = file; at !== start; at = cameFrom.get(at)!) path.unshift(at);
        return [start, ...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, file);
        queue.push(to);
      }
    }
  }
  return [start];
}

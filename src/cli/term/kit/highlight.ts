// Code from a fenced block, coloured for the terminal with highlight.js's grammars (through lowlight,
// which returns a tree rather than HTML). Only the languages answers show most are bundled, which
// keeps the chunk small; any other language, or no colour, leaves the code as it is.
import { createLowlight } from "lowlight";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import makefile from "highlight.js/lib/languages/makefile";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import type { Style } from "./style.js";

const lowlight = createLowlight({ bash, c, cpp, css, diff, go, java, javascript, json, makefile, python, ruby, rust, shell, sql, typescript, xml, yaml });

type Paint = (text: string) => string;

/** highlight.js's classes (without "hljs-") and how each is shown; a nested class wins over its parent. */
function palette(style: Style): Record<string, Paint> {
  return {
    keyword: style.magenta,
    "selector-tag": style.magenta,
    built_in: style.yellow,
    type: style.yellow,
    title: style.blue,
    // A class's name: highlight.js marks it "hljs-title class_".
    class_: style.yellow,
    string: style.green,
    regexp: style.green,
    addition: style.green,
    deletion: style.red,
    number: style.cyan,
    literal: style.cyan,
    symbol: style.cyan,
    attr: style.cyan,
    attribute: style.cyan,
    property: style.cyan,
    variable: style.red,
    "template-variable": style.red,
    subst: (text) => text,
    comment: style.dim,
    quote: style.dim,
    meta: style.dim,
    section: style.bold,
    strong: style.bold,
    emphasis: style.italic,
  };
}

interface HastNode {
  type: string;
  value?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

/** `code` coloured as `language` (a name or alias such as "ts", "sh"), or unchanged. */
export function highlightCode(code: string, language: string | undefined, style: Style): string {
  if (!style.color || !language || !lowlight.registered(language)) return code;
  const colours = palette(style);
  const paint = (node: HastNode, current: Paint): string => {
    if (node.type === "text") return current(node.value ?? "");
    const classes = Array.isArray(node.properties?.className) ? (node.properties.className as string[]) : [];
    // The most specific class comes last ("hljs-title class_").
    const own = classes.map((c) => colours[c.replace(/^hljs-/, "")]).findLast((p) => p !== undefined);
    // Each text is painted on its own, so a nested colour never ends its parent's early.
    return (node.children ?? []).map((child) => paint(child, own ?? current)).join("");
  };
  return paint(lowlight.highlight(language, code) as HastNode, (text) => text);
}

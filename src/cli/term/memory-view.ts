// What `hel memory ls|show` and `/memory` print of the facts kept across sessions (design §19). Pure:
// the facts in, the lines out. The text of a fact came from a fold note or a file a clone may have
// written: it is cleaned of control sequences before it reaches the terminal.
import type { Fact } from "../../memory/fact.js";
import type { Listed } from "../../memory/store.js";
import { plural } from "../../format.js";
import { PLAIN, terminalSafe, type Style } from "./kit/style.js";

const LINE_CHARS = 100;

/** One line a fact: its id, scope, state and text (cut); then a line saying how to review what waits. */
export function formatFactList(listed: readonly Listed[], style: Style = PLAIN): string[] {
  if (listed.length === 0) return ["no facts kept yet — hel memory add <text>, or /remember <text> in the prompt"];
  const lines = listed.map(({ fact, pending, planted }) => {
    const state = pending ? " pending" : planted ? " planted" : "";
    const text = oneLine(fact.text);
    return `${fact.id}  ${fact.scope.padEnd(7)}${style.dim(state.padEnd(8))}  ${text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS - 1)}…` : text}`;
  });
  const waiting = listed.filter((l) => l.pending || l.planted).length;
  if (waiting > 0) lines.push(style.dim(`${plural(waiting, "fact")} not recalled until kept: hel memory review (pending: offered by a fold; planted: in .hel/memory/, not written by hel for you)`));
  return lines;
}

/** Every field of one fact. */
export function formatFact({ fact, pending, planted }: Listed): string[] {
  const state = pending ? "pending (offered by a fold, not recalled until kept)" : planted ? "planted (not written by hel for you: not recalled until kept)" : "kept";
  return [
    `id:       ${fact.id}`,
    `scope:    ${fact.scope}`,
    `state:    ${state}`,
    `source:   ${terminalSafe(fact.source)}`,
    `created:  ${fact.created}`,
    `updated:  ${fact.updated} (revision ${fact.revision})`,
    "",
    terminalSafe(fact.text),
  ];
}

/** A fact as the review question shows it. */
export function reviewLines(fact: Fact, style: Style): string[] {
  return ["", `${style.bold("keep this in memory?")} ${style.dim(`(${fact.scope}, from ${terminalSafe(fact.source)})`)}`, `  ${oneLine(fact.text)}`];
}

const oneLine = (text: string): string => terminalSafe(text).replace(/\s*\n\s*/g, " ");

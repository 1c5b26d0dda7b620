// The resume line at the end of a run: one line on a pipe, as always; on a terminal of 60 or 80
// columns, the words fitted to its rows and the command a user copies on a row of its own, whole.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { rowWidth, wrapLine } from "../../src/cli/term/kit/style.js";
import { closingLines, type FitRows } from "../../src/conversation/closing-lines.js";
import { tempProject } from "../helpers/temp-project.js";

async function closing(interrupted: boolean, fit?: FitRows, lastSaveFailed = false): Promise<{ text: string; id: string; dir: string }> {
  const id = randomUUID();
  const dir = await tempProject();
  let text = "";
  const io = { stdout: { write: () => {} }, stderr: { write: (t: string) => void (text += t) }, env: {}, cwd: await tempProject() };
  await closingLines({ id, saved: true, lastSaveFailed }, dir, interrupted, io, fit);
  return { text, id, dir };
}

const terminal =
  (columns: number): FitRows =>
  (words) =>
    wrapLine(words, rowWidth(columns));

it("a pipe keeps the one line, however long", async () => {
  const { text, id, dir } = await closing(false);
  expect(text).toBe(`session ${id} — resume with: hel --resume ${id} -C ${dir}\n`);
  const stopped = await closing(true);
  expect(stopped.text).toBe(`hel: interrupted — the turn so far is saved in session ${stopped.id}; resume with: hel --resume ${stopped.id} -C ${stopped.dir}\n`);
});

it("a terminal wide enough for the whole line keeps the one line", async () => {
  const { text, id, dir } = await closing(false, terminal(200));
  expect(text).toBe(`session ${id} — resume with: hel --resume ${id} -C ${dir}\n`);
});

describe.each([60, 80])("at %i columns", (columns) => {
  const narrower = (rows: string[], command: string) => {
    expect(rows).toContain(command);
    expect(rows.filter((row) => row !== command && Array.from(row).length >= columns)).toEqual([]);
  };

  it("the resume line: its words fitted to the rows, the command whole on a row of its own", async () => {
    const { text, id, dir } = await closing(false, terminal(columns));
    const command = `hel --resume ${id} -C ${dir}`;
    const rows = text.split("\n").slice(0, -1);
    expect(Array.from(`session ${id} — resume with: ${command}`).length).toBeGreaterThan(columns);
    expect(rows).toEqual([`session ${id} — resume with:`, command]);
    narrower(rows, command);
  });

  it("after Ctrl-C, and after a turn that could not be saved: the same, nothing left out", async () => {
    const stopped = await closing(true, terminal(columns));
    const command = `hel --resume ${stopped.id} -C ${stopped.dir}`;
    const rows = stopped.text.split("\n").slice(0, -1);
    expect(rows.at(-1)).toBe(command);
    expect(
      rows
        .slice(0, -1)
        .map((row) => row.trim())
        .join(" "),
    ).toBe(`hel: interrupted — the turn so far is saved in session ${stopped.id}; resume with:`);
    narrower(rows, command);

    const lost = await closing(false, terminal(columns), true);
    const lostRows = lost.text.split("\n").slice(0, -1);
    const lostCommand = `hel --resume ${lost.id} -C ${lost.dir}`;
    expect(lostRows.slice(0, 2)).toEqual([`session ${lost.id} — resume with:`, lostCommand]);
    expect(
      lostRows
        .slice(2)
        .map((row) => row.trim())
        .join(" "),
    ).toBe("(without the last turn, which could not be saved)");
    narrower(lostRows, lostCommand);
  });
});

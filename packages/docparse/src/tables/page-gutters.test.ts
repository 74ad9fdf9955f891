import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { detectAlignedTables } from "./aligned.ts";
import { run } from "./test-geometry.ts";

const COLUMNS = [28, 293, 558];
const PROSE = "plain text about the commands runs across the col";
/** Where each column's descriptions start, past its commands. */
const DESCRIPTIONS = [41, 72, 88];

/**
 * A landscape cheat sheet in 8 pt: three columns 10 pt apart or more, each with prose above and below a list of
 * six commands beside their descriptions, each column's list on baselines of its own a point or two off the
 * others', so that the lists' rows meet across the page.
 */
function cheatSheet() {
  const runs = COLUMNS.flatMap((x, c) => {
    const column = [];
    for (let i = 0; i < 8; i++) column.push(run(PROSE, x, 40 + 10 * i, { fontSize: 8 }));
    for (let i = 0; i < 6; i++) {
      const y = 150 + [0, 2, 1][c] + 9.5 * i;
      column.push(
        run(`\\cm${c}${i}`, x, y, { fontSize: 8 }),
        run(`Does thing ${i}.`, x + DESCRIPTIONS[c], y, { fontSize: 8 }),
      );
    }
    for (let i = 0; i < 8; i++) column.push(run(PROSE, x, 240 + 10 * i, { fontSize: 8 }));
    return column;
  });
  return pageGeometry({ width: 842, height: 595, runs });
}

test("lists of commands in a cheat sheet's three columns are no one table across the page's gutters", () => {
  const tables = detectAlignedTables(cheatSheet());
  for (const table of tables) {
    const inside = COLUMNS.some((x) => table.box.x1 >= x - 1 && table.box.x2 <= x + 255);
    assert.ok(inside, JSON.stringify(table.box));
  }
});

test("a Portuguese LaTeX cheat sheet reads its first column before the second", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("pt-latex-cheatsheet-p1.pdf", [
    { before: ["onde chapter tem profundidade 0.", "Ambientes de texto"] },
    { present: "Cabeçalho, rodapé vazios e sem número de página." },
  ]);
});

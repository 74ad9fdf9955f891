import type { Box } from "../model.ts";
import { median } from "../statistics.ts";
import { detectAlignedTables } from "../tables/aligned.ts";
import { clippedCellTables } from "../tables/clipped-cells.ts";
import { detectDashedHeaderTables } from "../tables/dashed-header.ts";
import { inReadingDirection } from "../tables/direction.ts";
import { detectKeyValueTables } from "../tables/key-value.ts";
import { detectRuledTables } from "../tables/ruled.ts";
import { ruledKeyValueTables } from "../tables/ruled-key-value.ts";
import { box, type DetectedTable, type PageGeometry, type TextRun } from "./geometry.ts";
import { marginLineNumbers } from "./gutter-numbers.ts";
import { sideBySideLists } from "./side-lists.ts";

/**
 * The page's text apart from the blocks set across a page turned for its vertical writing, then each block: their
 * lines stand level with the columns' lines beside them without being rows of one table.
 */
function frames(page: PageGeometry): PageGeometry[] {
  const blocks = page.acrossBlocks ?? [];
  if (blocks.length === 0) return [page];
  const inside = (b: Box) => (run: TextRun) => box.containsCenter(b, run.box, 1);
  return [
    { ...page, runs: page.runs.filter((run) => !blocks.some((b) => inside(b)(run))) },
    ...blocks.map((b) => ({ ...page, runs: page.runs.filter(inside(b)) })),
  ];
}

/**
 * Tables of a page: grids of ruling lines first, then columns of aligned text elsewhere on the page, then bold
 * labels beside their values, then labels beside values in rows ruled between them; each with its columns in
 * reading order (right to left for a table in a right-to-left script).
 */
export function tableStage(page: PageGeometry): DetectedTable[] {
  const ruled = detectRuledTables(page);
  // A margin's ruler of line numbers lines up with the text beside it like a column of row numbers: the aligned
  // columns are looked for without it (a numbered column of prose, or two texts side by side, are no table).
  const rulers = marginLineNumbers(
    page.runs,
    median(
      page.runs.map((run) => run.fontSize),
      10,
    ),
  );
  const unnumbered = rulers.size > 0 ? { ...page, runs: page.runs.filter((run) => !rulers.has(run)) } : page;
  // A printout's columns under names underlined by dashes (see dashed-header.ts).
  const dashed = detectDashedHeaderTables(
    unnumbered,
    ruled.map((table) => table.box),
  );
  // A spreadsheet's columns shown by the rectangles its long entries are clipped to (see clipped-cells.ts).
  const clipped = clippedCellTables(
    unnumbered,
    [...ruled, ...dashed].map((table) => table.box),
  );
  // Bulleted lists side by side line up like columns; they are read as lists.
  const aligned = frames(unnumbered)
    .flatMap((part) =>
      detectAlignedTables(part, undefined, {
        exclude: [...ruled, ...dashed, ...clipped].map((table) => table.box),
      }),
    )
    .filter((table) => !sideBySideLists(table));
  const keyValue = detectKeyValueTables(
    page,
    [...ruled, ...dashed, ...clipped, ...aligned].map((table) => table.box),
  );
  // Labels beside their values in rows ruled between them only, where no table above reads them (bold labels
  // of an infobox are key-value.ts's).
  const ruledKeyValue = ruledKeyValueTables(
    page,
    [...ruled, ...dashed, ...clipped, ...aligned, ...keyValue].map((table) => table.box),
  );
  return [...ruled, ...dashed, ...clipped, ...aligned, ...keyValue, ...ruledKeyValue].map(inReadingDirection);
}

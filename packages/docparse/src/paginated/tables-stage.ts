import { detectAlignedTables } from "../tables/aligned.ts";
import { detectRuledTables } from "../tables/ruled.ts";
import type { DetectedTable, PageGeometry } from "./geometry.ts";

/** Tables of a page: grids of ruling lines first, then columns of aligned text elsewhere on the page. */
export function tableStage(page: PageGeometry): DetectedTable[] {
  const ruled = detectRuledTables(page);
  const aligned = detectAlignedTables(page, undefined, { exclude: ruled.map((table) => table.box) });
  return [...ruled, ...aligned];
}

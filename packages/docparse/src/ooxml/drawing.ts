import type { FigureItem, ItemSink, Provenance, TableItem, TextItem } from "../model.ts";
import { readChart } from "./chart.ts";
import type { OoxmlPackage } from "./package.ts";

/**
 * A chart part as items: its title as a figure caption, the chart as a figure (type and title kept), and its
 * cached data as a table right after, captioned by the chart's kind. Returns false when the part is absent or holds no chart.
 */
export function addChart(sink: ItemSink, pkg: OoxmlPackage, part: string, prov: Provenance): boolean {
  const root = pkg.xml(part);
  const chart = root ? readChart(root) : null;
  if (!chart) return false;
  if (chart.title) {
    sink.add<TextItem>({ label: "figure_caption", text: chart.title, furniture: false, prov: [prov] });
  }
  sink.add<FigureItem>({
    label: "figure",
    caption: null,
    source: null,
    chart: { type: chart.type, title: chart.title, data: chart.data },
    furniture: false,
    prov: [prov],
  });
  if (chart.numCols > 1) {
    // The data table is captioned by the chart's kind (`Bar chart`), so a reader knows what the numbers are.
    const kind = `${chart.type.replace(/\+/g, " and ")} chart`;
    const caption = kind[0].toUpperCase() + kind.slice(1);
    sink.add<TextItem>({ label: "table_caption", text: caption, furniture: false, prov: [prov] });
    sink.add<TableItem>({
      label: "table",
      numRows: chart.numRows,
      numCols: chart.numCols,
      cells: chart.cells,
      caption,
      furniture: false,
      prov: [{ ...prov }],
    });
  }
  return true;
}

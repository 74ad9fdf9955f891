/**
 * A set of slide tables written here, with their expected HTML as truth: header rows and columns (the table
 * style's firstRow / firstCol flags), banded styles, empty cells, cells merged across and down. Each table is
 * written as a DrawingML `a:tbl` on a slide of its own; `renderSlideTables` can also pass the deck through
 * LibreOffice Impress, so the set is read both as written here and as LibreOffice writes it back.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseDocument } from "../index.ts";
import { pptx } from "../ooxml/test-package.ts";
import { teds } from "./teds.ts";

/**
 * One slide table. `rows` holds one string per grid cell: its text (`\n` between paragraphs, `\r` for a line
 * break, `*bold*` for a bold run), or `<` for a cell covered by the merged cell on its left, `^` for one covered
 * by the merged cell above; text after the `<` or `^` stays in the covered cell, hidden (PowerPoint keeps the
 * text of cells merged away).
 */
export interface SlideTable {
  name: string;
  firstRow: boolean;
  firstCol: boolean;
  bandRow: boolean;
  rows: string[][];
}

const t = (name: string, flags: string, rows: string[][]): SlideTable => ({
  name,
  firstRow: flags.includes("H"),
  firstCol: flags.includes("C"),
  bandRow: flags.includes("B"),
  rows,
});

/** The set: flags H = firstRow, C = firstCol, B = bandRow. */
export const SLIDE_TABLES: readonly SlideTable[] = [
  t("plain header, banded", "HB", [
    ["Region", "Q1", "Q2", "Q3"],
    ["North", "12", "15", "11"],
    ["South", "9", "8", "14"],
    ["East", "21", "19", "20"],
  ]),
  t("no header row", "B", [
    ["alpha", "1"],
    ["beta", "2"],
    ["gamma", "3"],
  ]),
  t("empty cells", "HB", [
    ["Task", "Mon", "Tue", "Wed", "Thu"],
    ["Review", "x", "", "", "x"],
    ["Deploy", "", "", "x", ""],
    ["Report", "", "x", "", ""],
  ]),
  t("empty corner and row", "HC", [
    ["", "Before", "After"],
    ["Latency", "40 ms", "22 ms"],
    ["", "", ""],
    ["Errors", "3", "0"],
  ]),
  t("merged header across", "HB", [
    ["Product", "2025", "<", "2026", "<"],
    ["", "H1", "H2", "H1", "H2"],
    ["Widgets", "5", "6", "7", ""],
    ["Gadgets", "", "2", "3", "4"],
  ]),
  t("merged down first column", "HCB", [
    ["Team", "Member", "Role"],
    ["Platform", "Ana", "Lead"],
    ["^", "Bo", "Dev"],
    ["^", "Cy", ""],
    ["Data", "Dee", "Analyst"],
    ["^", "", "Intern"],
  ]),
  t("block merge", "H", [
    ["Key", "Value", "Note", "Owner"],
    ["Span", "two by two", "<", "Kim"],
    ["x", "^", "^", "Lee"],
    ["y", "", "z", ""],
  ]),
  t("paragraphs in cells", "HB", [
    ["Step", "Details"],
    ["Install", "Download the package\nRun the installer"],
    ["Configure", "Edit settings"],
  ]),
  t("no style flags", "", [
    ["a", "b", "c"],
    ["", "e", ""],
    ["g", "<", "i"],
  ]),
  t("breaks, bold, hidden text", "HB", [
    ["Item", "Notes", "Owner"],
    ["Launch", "*Go*\rlive on Monday", "Ana"],
    ["Budget", "2 400 EUR", "<kept from before the merge"],
    ["Risks", "*none* known\rso far", ""],
  ]),
  t("last row total, first column", "CB", [
    ["Jan", "10", "12"],
    ["Feb", "", "9"],
    ["Mar", "7", "^hidden"],
    ["Sum", "17", "21"],
  ]),
  t("merged across and down", "HCB", [
    ["Site", "Metric", "Jan", "Feb", "Mar"],
    ["Berlin", "Visits", "120", "", "140"],
    ["^", "Sales", "4", "5", ""],
    ["Paris", "Visits", "no data", "<", "<"],
    ["^", "Sales", "", "", "2"],
    ["Total", "<", "124", "5", "142"],
  ]),
];

interface Origin {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
}

/** Each grid cell's merged cell: the origin (top-left) it belongs to, with that origin's spans. */
function origins(table: SlideTable): Origin[][] {
  const grid: Origin[][] = table.rows.map(() => []);
  table.rows.forEach((cells, row) => {
    cells.forEach((text, col) => {
      if (text.startsWith("<")) grid[row][col] = grid[row][col - 1];
      else if (text.startsWith("^")) grid[row][col] = grid[row - 1][col];
      else grid[row][col] = { row, col, rowSpan: 1, colSpan: 1 };
      const origin = grid[row][col];
      origin.colSpan = Math.max(origin.colSpan, col - origin.col + 1);
      origin.rowSpan = Math.max(origin.rowSpan, row - origin.row + 1);
    });
  });
  return grid;
}

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The table's expected HTML: `th` in the header row and column its flags ask for, spans on merged cells. */
export function truthHtml(table: SlideTable): string {
  const grid = origins(table);
  let html = "<table>";
  table.rows.forEach((cells, row) => {
    html += "<tr>";
    cells.forEach((text, col) => {
      const origin = grid[row][col];
      if (origin.row !== row || origin.col !== col) return;
      const tag = (table.firstRow && row === 0) || (table.firstCol && col === 0) ? "th" : "td";
      const spans =
        (origin.rowSpan > 1 ? ` rowspan="${origin.rowSpan}"` : "") +
        (origin.colSpan > 1 ? ` colspan="${origin.colSpan}"` : "");
      html += `<${tag}${spans}>${escapeXml(text.replace(/[\n\r]/g, " ").replace(/\*/g, ""))}</${tag}>`;
    });
    html += "</tr>";
  });
  return `${html}</table>`;
}

/** One paragraph's runs: `*` toggles bold, `\r` is a line break. */
function paragraphXml(line: string): string {
  if (!line) return "<a:p/>";
  const runs = line.split("*").flatMap((part, i) =>
    part.split("\r").map((piece, j) => {
      const run = piece
        ? `<a:r><a:rPr lang="en-US"${i % 2 ? ' b="1"' : ""}/><a:t>${escapeXml(piece)}</a:t></a:r>`
        : "";
      return (j > 0 ? "<a:br/>" : "") + run;
    }),
  );
  return `<a:p>${runs.join("")}</a:p>`;
}

/** The table as a slide's graphic frame (PowerPoint's "Medium Style 2 - Accent 1" table style). */
export function tableFrameXml(table: SlideTable): string {
  const grid = origins(table);
  const cols = table.rows[0]?.length ?? 0;
  const flag = (name: string, on: boolean) => (on ? ` ${name}="1"` : "");
  const rows = table.rows
    .map((cells, row) => {
      const tcs = cells.map((text, col) => {
        const origin = grid[row][col];
        const attrs =
          origin.row === row && origin.col === col
            ? (origin.colSpan > 1 ? ` gridSpan="${origin.colSpan}"` : "") +
              (origin.rowSpan > 1 ? ` rowSpan="${origin.rowSpan}"` : "")
            : (col > origin.col ? ' hMerge="1"' : "") + (row > origin.row ? ' vMerge="1"' : "");
        const own = origin.row === row && origin.col === col ? text : text.slice(1);
        const paragraphs = own.split("\n").map(paragraphXml).join("");
        return `<a:tc${attrs}><a:txBody><a:bodyPr/><a:lstStyle/>${paragraphs}</a:txBody><a:tcPr/></a:tc>`;
      });
      return `<a:tr h="370840">${tcs.join("")}</a:tr>`;
    })
    .join("");
  return (
    '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="2" name="Table"/><p:cNvGraphicFramePr><a:graphicFrameLocks noGrp="1"/></p:cNvGraphicFramePr><p:nvPr/></p:nvGraphicFramePr>' +
    `<p:xfrm><a:off x="838200" y="1825625"/><a:ext cx="${cols * 2000000}" cy="${table.rows.length * 370840}"/></p:xfrm>` +
    '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl>' +
    `<a:tblPr${flag("firstRow", table.firstRow)}${flag("firstCol", table.firstCol)}${flag("bandRow", table.bandRow)}>` +
    "<a:tableStyleId>{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}</a:tableStyleId></a:tblPr>" +
    `<a:tblGrid>${'<a:gridCol w="2000000"/>'.repeat(cols)}</a:tblGrid>${rows}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
  );
}

const TYPES = "application/vnd.openxmlformats-officedocument.presentationml";
const CONTENT_TYPES = (slides: number) =>
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  `<Override PartName="/ppt/presentation.xml" ContentType="${TYPES}.presentation.main+xml"/>` +
  `<Override PartName="/ppt/tableStyles.xml" ContentType="${TYPES}.tableStyles+xml"/>` +
  Array.from(
    { length: slides },
    (_, i) => `<Override PartName="/ppt/slides/slide${i + 1}.xml" ContentType="${TYPES}.slide+xml"/>`,
  ).join("") +
  "</Types>";

const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/** One part of a table style (the whole table, a band, a header row or column): its fill and its text's look. */
function tableStylePart(part: string, fill: string, text?: { color: string; bold: boolean }): string {
  const textStyle = text
    ? `<a:tcTxStyle${text.bold ? ' b="on"' : ""}><a:srgbClr val="${text.color}"/></a:tcTxStyle>`
    : "";
  const cellStyle = `<a:tcStyle><a:fill><a:solidFill><a:srgbClr val="${fill}"/></a:solidFill></a:fill></a:tcStyle>`;
  return `<a:${part}>${textStyle}${cellStyle}</a:${part}>`;
}

/**
 * The table style the frames name, as PowerPoint keeps it in `ppt/tableStyles.xml` (its colours written out):
 * a reader of the file alone (LibreOffice) applies it from here.
 */
const TABLE_STYLES =
  '<?xml version="1.0"?><a:tblStyleLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" def="{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}">' +
  '<a:tblStyle styleId="{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}" styleName="Medium Style 2 - Accent 1">' +
  tableStylePart("wholeTbl", "CFD5EA", { color: "000000", bold: false }) +
  tableStylePart("band1H", "E9EBF5") +
  tableStylePart("firstCol", "4472C4", { color: "FFFFFF", bold: true }) +
  tableStylePart("firstRow", "4472C4", { color: "FFFFFF", bold: true }) +
  "</a:tblStyle></a:tblStyleLst>";

/** A deck with one slide per table, in order, and the table style they use. */
export function slideTablesDeck(tables: readonly SlideTable[]): Uint8Array {
  const slideRels = tables.map(
    (_, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/slide" Target="slides/slide${i + 1}.xml"/>`,
  );
  return pptx(
    tables.map((table) => ({ tree: tableFrameXml(table) })),
    {
      "[Content_Types].xml": CONTENT_TYPES(tables.length),
      "ppt/tableStyles.xml": TABLE_STYLES,
      "ppt/_rels/presentation.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${slideRels.join("")}<Relationship Id="rTS" Type="${REL}/tableStyles" Target="tableStyles.xml"/></Relationships>`,
    },
  );
}

/**
 * The set's deck as written here (`written`) and as LibreOffice Impress saves it back to PPTX (`libreoffice`,
 * when `withOffice`), both under `dir`.
 */
export function renderSlideTables(
  dir: string,
  withOffice: boolean,
  tables: readonly SlideTable[] = SLIDE_TABLES,
): { written: Uint8Array; libreoffice?: Uint8Array } {
  const out = path.join(dir, "libreoffice");
  mkdirSync(out, { recursive: true });
  const written = slideTablesDeck(tables);
  const source = path.join(dir, "slide-tables.pptx");
  writeFileSync(source, written);
  if (!withOffice) return { written };
  execFileSync(
    "soffice",
    [
      `-env:UserInstallation=file://${path.join(dir, "profile")}`,
      "--headless",
      "--convert-to",
      "pptx:Impress MS PowerPoint 2007 XML",
      "--outdir",
      out,
      source,
    ],
    // soffice's temporary files (`lu*.tmp`) go in `dir`, not /tmp.
    { stdio: "ignore", timeout: 600_000, env: { ...process.env, TMPDIR: dir } },
  );
  return { written, libreoffice: new Uint8Array(readFileSync(path.join(out, "slide-tables.pptx"))) };
}

/**
 * Each table's TEDS against the table parsed from its slide (0 when none was found), TEDS-structure, and TEDS
 * with every `th` read as `td` (`cells`: the text, spans and empty cells, header flags aside).
 */
export async function scoreSlideTables(
  deck: Uint8Array,
  tables: readonly SlideTable[] = SLIDE_TABLES,
): Promise<{ name: string; teds: number; structure: number; cells: number; html: string | null }[]> {
  const { result } = await parseDocument({
    bytes: deck,
    mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  });
  return tables.map((table, i) => {
    const page = result.pages.find((p) => p.page_number === i + 1);
    const fragment = page?.page_fragments?.find((f) => f.fragment_type === "table");
    const html = fragment && "html" in fragment.content ? (fragment.content.html ?? null) : null;
    if (!html) return { name: table.name, teds: 0, structure: 0, cells: 0, html };
    const truth = truthHtml(table);
    const plain = (text: string) => text.replace(/<(\/?)th\b/g, "<$1td");
    return {
      name: table.name,
      teds: teds(truth, html).score,
      structure: teds(truth, html, { structureOnly: true }).score,
      cells: teds(plain(truth), plain(html)).score,
      html,
    };
  });
}

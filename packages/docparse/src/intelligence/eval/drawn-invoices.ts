/**
 * Invoices of the labelled set drawn straight into PDF with pdf-lib, in two layouts LibreOffice's conversions never
 * produce: `columns`, every group of pairs as a column of labels beside a column of values; and `total-line`,
 * `Label: value` lines with the total set apart in a bold, larger line. Line items are a ruled grid in both. The
 * standard Helvetica fonts have built-in metrics, so the pages are the same on every machine.
 */
import { PDFDocument, type PDFFont, type PDFPage, StandardFonts } from "pdf-lib";
import { parseDocument } from "../../index.ts";
import { extractStructured } from "../extract.ts";
import { partitionDocument } from "../partition.ts";
import { addCounts, type FieldCounts, scoreFields } from "./extraction-score.ts";
import { buildExtractionSet, type EvalDocument, type Wording } from "./extraction-set.ts";

export type DrawnLayout = "columns" | "total-line";
export const DRAWN_LAYOUTS: DrawnLayout[] = ["columns", "total-line"];

const LEFT = 56;
const WIDTH = 500;

/** Text the standard fonts can encode: checkbox marks as `[x]` and `[ ]`, other characters they lack dropped. */
function encodable(text: string, font: PDFFont): string {
  const marked = text.replace(/☑/g, "[x]").replace(/☐/g, "[ ]");
  return [...marked]
    .filter((char) => {
      try {
        font.encodeText(char);
        return true;
      } catch {
        return false;
      }
    })
    .join("");
}

/** Draws an invoice of the set; in `total-line`, the total of its last group of pairs is the bold line. */
export async function drawnInvoicePdf(doc: EvalDocument, layout: DrawnLayout): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const page: PDFPage = pdf.addPage([612, 792]);
  let y = 740;
  const text = (value: string, x: number, size: number, font: PDFFont) => {
    page.drawText(encodable(value, font), { x, y, size, font });
  };
  const pairGroups = doc.blocks.filter((block) => block.type === "pairs").length;
  let groupIndex = 0;
  for (const block of doc.blocks) {
    if (block.type === "heading") {
      text(block.text, LEFT, 20, bold);
      y -= 34;
    } else if (block.type === "paragraph") {
      text(block.text, LEFT, 10, regular);
      y -= 22;
    } else if (block.type === "pairs") {
      groupIndex++;
      const last = groupIndex === pairGroups;
      if (layout === "columns") {
        const top = y;
        for (const [label] of block.pairs) {
          text(label, LEFT, 10, bold);
          y -= 15;
        }
        y = top;
        for (const [, value] of block.pairs) {
          text(value, LEFT + 170, 10, regular);
          y -= 15;
        }
      } else {
        block.pairs.forEach(([label, value], index) => {
          // The set writes an invoice's totals as subtotal, tax, total, paid: the third is the total.
          const total = last && index === 2;
          if (total) y -= 8;
          text(`${label}: ${value}`, LEFT, total ? 15 : 10, total ? bold : regular);
          y -= total ? 26 : 15;
        });
      }
      y -= 10;
    } else if (block.type === "table") {
      const columns = block.headers.length;
      const cell = WIDTH / columns;
      const rows = [block.headers, ...block.rows];
      const rowHeight = 18;
      rows.forEach((row, r) => {
        row.forEach((value, c) => {
          page.drawText(encodable(value, r === 0 ? bold : regular), {
            x: LEFT + c * cell + 4,
            y: y - (r + 1) * rowHeight + 5,
            size: 9,
            font: r === 0 ? bold : regular,
          });
        });
      });
      for (let r = 0; r <= rows.length; r++) {
        page.drawLine({
          start: { x: LEFT, y: y - r * rowHeight },
          end: { x: LEFT + WIDTH, y: y - r * rowHeight },
        });
      }
      for (let c = 0; c <= columns; c++) {
        page.drawLine({
          start: { x: LEFT + c * cell, y },
          end: { x: LEFT + c * cell, y: y - rows.length * rowHeight },
        });
      }
      y -= rows.length * rowHeight + 20;
    }
  }
  return new Uint8Array(await pdf.save());
}

/** Field counts of the drawn invoices of one wording set, per layout. */
export async function drawnInvoiceEval(
  perLayout: number,
  wording: Wording,
): Promise<Record<DrawnLayout, FieldCounts>> {
  const invoices = buildExtractionSet(perLayout, wording).filter((doc) => doc.kind === "invoice");
  const counts = Object.fromEntries(
    DRAWN_LAYOUTS.map((layout) => [layout, { tp: 0, fp: 0, fn: 0 }]),
  ) as Record<DrawnLayout, FieldCounts>;
  for (const doc of invoices) {
    for (const layout of DRAWN_LAYOUTS) {
      const { document } = await parseDocument({
        bytes: await drawnInvoicePdf(doc, layout),
        mimeType: "application/pdf",
      });
      const [partition] = partitionDocument(document, "none", null);
      const { data } = extractStructured(partition, doc.schema, { provideCitations: false });
      addCounts(counts[layout], scoreFields(doc.expected, data));
    }
  }
  return counts;
}

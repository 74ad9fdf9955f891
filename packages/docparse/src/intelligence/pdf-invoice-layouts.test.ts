import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PDFDocument, type PDFFont, type PDFPage, StandardFonts } from "pdf-lib";
import { parseDocument } from "../index.ts";
import { extractStructured } from "./extract.ts";
import { partitionDocument } from "./partition.ts";
import type { JsonSchema } from "./schema.ts";

/**
 * Offline extraction on PDF invoices laid out in ways that used to be misread: labels and values drawn as two
 * columns side by side (the layout reads each column as one block), and a bold, larger "Total Due" line (read as
 * a heading). Pages are drawn with pdf-lib in the standard Helvetica fonts, whose metrics are built in: nothing
 * depends on the machine's fonts.
 */

const SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    invoice_number: { type: "string" },
    invoice_date: { type: "string", description: "The invoice date, ISO 8601" },
    due_date: { type: "string" },
    customer_name: { type: "string" },
    address: { type: "string" },
    subtotal: { type: "number" },
    tax: { type: "number" },
    total_due: { type: "number" },
  },
};

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

async function pdfOf(draw: (page: PDFPage, fonts: Fonts) => void): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const fonts = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
  };
  draw(pdf.addPage([612, 792]), fonts);
  return new Uint8Array(await pdf.save());
}

/** Text drawn so that it ends at `x2` (right-aligned). */
function drawRight(page: PDFPage, text: string, font: PDFFont, size: number, x2: number, y: number) {
  page.drawText(text, { x: x2 - font.widthOfTextAtSize(text, size), y, size, font });
}

async function extract(bytes: Uint8Array) {
  const { document } = await parseDocument({ bytes, mimeType: "application/pdf" });
  const [partition] = partitionDocument(document, "none", null);
  return extractStructured(partition, SCHEMA, { provideCitations: true });
}

describe("PDF invoices: label and value columns, a bold total line", () => {
  test("a column of labels beside a column of values: each label gets the value on its baseline", async () => {
    const bytes = await pdfOf((page, { regular, bold }) => {
      page.drawText("INVOICE", { x: 72, y: 720, size: 22, font: bold });
      page.drawText("Globex Ltd, 12 Harbour Road, Leeds", { x: 72, y: 700, size: 10, font: regular });
      const rows = [
        ["Invoice Number", "INV-48213"],
        ["Invoice Date", "14 March 2026"],
        ["Due Date", "13 April 2026"],
        ["Customer", "Acme Corp"],
        ["Subtotal", "1,200.00"],
        ["Tax", "240.00"],
        ["Total Due", "1,440.00"],
      ];
      // The labels are drawn first as one column, then the values as another.
      rows.forEach(([label], i) => {
        page.drawText(label, { x: 72, y: 640 - i * 20, size: 11, font: bold });
      });
      rows.forEach(([, value], i) => {
        page.drawText(value, { x: 260, y: 640 - i * 20, size: 11, font: regular });
      });
    });
    const { data, citations } = await extract(bytes);
    assert.deepEqual(data, {
      invoice_number: "INV-48213",
      invoice_date: "2026-03-14",
      due_date: "2026-04-13",
      customer_name: "Acme Corp",
      address: null,
      subtotal: 1200,
      tax: 240,
      total_due: 1440,
    });
    const total = citations.find((citation) => citation.field === "/total_due");
    assert.ok(total?.bbox && total.bbox.x1 >= 259, `cited at the value: ${JSON.stringify(total?.bbox)}`);
  });

  test("labels with colons, values right-aligned, a value wrapped over two lines, a field left out", async () => {
    const bytes = await pdfOf((page, { regular, bold }) => {
      page.drawText("Invoice", { x: 72, y: 720, size: 22, font: bold });
      const rows = [
        ["Invoice No.:", "A-7781"],
        ["Date:", "2 May 2026"],
        ["Customer:", "Initech GmbH"],
        ["Address:", "4 Quay Street"],
        ["", "Dublin D02"],
        ["Tax:", "61.20"],
      ];
      rows.forEach(([label, value], i) => {
        const y = 650 - i * 16;
        if (label) page.drawText(label, { x: 330, y, size: 10, font: bold });
        drawRight(page, value, regular, 10, 540, y);
      });
      page.drawText("Consulting on the warehouse layout, April 2026.", {
        x: 72,
        y: 540,
        size: 10,
        font: regular,
      });
    });
    const { data } = await extract(bytes);
    assert.deepEqual(data, {
      invoice_number: "A-7781",
      invoice_date: "2026-05-02",
      due_date: null,
      customer_name: "Initech GmbH",
      address: "4 Quay Street Dublin D02",
      subtotal: null,
      tax: 61.2,
      total_due: null,
    });
  });

  test("a bold, larger Total Due line is read as a label and its value", async () => {
    const withColon = await pdfOf((page, { regular, bold }) => {
      page.drawText("INVOICE", { x: 72, y: 720, size: 22, font: bold });
      const lines = [
        "Invoice Number: INV-5521",
        "Invoice Date: 14 March 2026",
        "Subtotal: 1,200.00",
        "Tax: 240.00",
      ];
      lines.forEach((line, i) => {
        page.drawText(line, { x: 72, y: 660 - i * 18, size: 11, font: regular });
      });
      page.drawText("Total Due: $1,440.00", { x: 72, y: 560, size: 16, font: bold });
      page.drawText("Thank you for your business. Payment is due within 30 days.", {
        x: 72,
        y: 530,
        size: 10,
        font: regular,
      });
    });
    const first = (await extract(withColon)).data as Record<string, unknown>;
    assert.equal(first.invoice_number, "INV-5521");
    assert.equal(first.subtotal, 1200);
    assert.equal(first.total_due, 1440);

    // No colon: the label at the left margin, the amount at the right one, both bold and larger.
    const apart = await pdfOf((page, { regular, bold }) => {
      page.drawText("INVOICE", { x: 72, y: 720, size: 22, font: bold });
      page.drawText("Invoice Number: INV-5522", { x: 72, y: 660, size: 11, font: regular });
      page.drawText("Tax: 12.00", { x: 72, y: 642, size: 11, font: regular });
      page.drawText("TOTAL DUE", { x: 72, y: 560, size: 15, font: bold });
      drawRight(page, "$367.20", bold, 15, 540, 560);
    });
    const second = (await extract(apart)).data as Record<string, unknown>;
    assert.equal(second.invoice_number, "INV-5522");
    assert.equal(second.total_due, 367.2);
  });

  test("columns of prose side by side and an ordinary heading give no values", async () => {
    const bytes = await pdfOf((page, { regular, bold }) => {
      page.drawText("Annual Report 2025", { x: 72, y: 720, size: 18, font: bold });
      const left = [
        "Our company grew in every region this year,",
        "and the new warehouse opened in the spring.",
        "Customers praised the faster deliveries.",
      ];
      const right = [
        "Sales rose by 12 percent to 4.2 million, and",
        "the board proposes a dividend of 1.20 per",
        "share, paid on 30 June to every holder.",
      ];
      left.forEach((line, i) => {
        page.drawText(line, { x: 72, y: 660 - i * 14, size: 10, font: regular });
      });
      right.forEach((line, i) => {
        page.drawText(line, { x: 320, y: 660 - i * 14, size: 10, font: regular });
      });
    });
    const { data } = await extract(bytes);
    for (const [field, value] of Object.entries(data as Record<string, unknown>)) {
      assert.equal(value, null, `${field} is not on the page`);
    }
  });
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { tableStage } from "../paginated/tables-stage.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";
import { grid } from "./test-geometry.ts";

/** A ledger's row drawn as a spreadsheet prints it: each cell's text alone, the particulars clipped to their cell. */
function row(y: number, cells: readonly [number, string][], particulars: string, clipped: boolean): string {
  const text = (x: number, s: string) => `BT /F1 9 Tf ${x} ${y} Td (${s}) Tj ET`;
  const entry = clipped ? `q 150 ${y - 2} 150 11 re W n ${text(150, particulars)} Q` : text(150, particulars);
  return [...cells.map(([x, s]) => text(x, s)), entry].join("\n");
}

async function tables(content: string) {
  const doc = await openPdf(onePagePdf(content));
  try {
    return tableStage(await extractPdfPage(doc, 1));
  } finally {
    await doc.destroy();
  }
}

test("cells clipped at one column's edges on two rows make the table, its columns set closer than a gutter", async () => {
  // No rules; columns a few points apart (the particulars' clip 2 pt before the debit), the particulars long
  // enough to read as prose, two of them running on hidden past the clip; the numbers set right, 4.5 pt past
  // the end of their header `No`, still under it.
  const content = [
    row(
      700,
      [
        [50, "Date"],
        [100, "No"],
        [302, "Debit"],
        [352, "Credit"],
      ],
      "Particulars",
      false,
    ),
    row(
      686,
      [
        [50, "01-Apr-16"],
        [116, "12"],
        [352, "27614207"],
      ],
      "Opening balance brought forward",
      false,
    ),
    row(
      672,
      [
        [50, "13-May-16"],
        [116, "38"],
        [302, "2640657"],
      ],
      "Cheque 085900 bill no.133, 132, 139, 138, 143, 140, 142, 141, 144, 156",
      true,
    ),
    row(
      658,
      [
        [50, "25-Jun-16"],
        [116, "50"],
        [302, "132696"],
      ],
      "Cheque 086352 commission returned",
      false,
    ),
    row(
      644,
      [
        [50, "19-Aug-16"],
        [121, "1"],
        [302, "1074935"],
      ],
      "Cheque 086866 being payment against bill no.197 dated 29.01.2016",
      true,
    ),
  ].join("\n");
  const found = await tables(content);
  assert.equal(found.length, 1, "one table");
  const cells = grid(found[0]);
  assert.deepEqual(cells[0], ["Date", "No", "Particulars", "Debit", "Credit"]);
  assert.equal(cells[2][1], "38");
  assert.deepEqual(cells[3], ["25-Jun-16", "50", "Cheque 086352 commission returned", "132696", ""]);
  // The hidden rest stays the cell's text.
  assert.match(cells[4][2], /dated 29\.01\.2016$/);
  assert.equal(cells[4][3], "1074935");
});

test("one clipped entry is no column: the same page with a single clip makes no table", async () => {
  const content = [
    row(
      700,
      [
        [50, "Date"],
        [100, "No"],
        [302, "Debit"],
        [352, "Credit"],
      ],
      "Particulars",
      false,
    ),
    row(
      686,
      [
        [50, "01-Apr-16"],
        [116, "12"],
        [352, "27614207"],
      ],
      "Opening balance brought forward",
      false,
    ),
    row(
      672,
      [
        [50, "13-May-16"],
        [116, "38"],
        [302, "2640657"],
      ],
      "Cheque 085900 bill no.133, 132, 139, 138, 143, 140, 142, 141, 144, 156",
      true,
    ),
    row(
      658,
      [
        [50, "25-Jun-16"],
        [116, "50"],
        [302, "132696"],
      ],
      "Cheque 086352 commission returned",
      false,
    ),
  ].join("\n");
  assert.equal((await tables(content)).length, 0);
});

test("the ledger printed from a spreadsheet: its header and rows read as the table its clipped particulars show", async () => {
  await assertPdfFacts("ledger-statement-p1.pdf", [
    { neighbours: ["Vr.Date", "Vr.No"] },
    { neighbours: ["Dr.Amt", "Cr.Amt"] },
    { neighbours: ["Cr.Amt", "Balance"] },
    { neighbours: ["Chq. No. 086352 BEING COMMISSION RETURNED TO PARTY", "132696"] },
  ]);
});

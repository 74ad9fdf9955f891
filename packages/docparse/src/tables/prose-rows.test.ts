import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { markdownRows } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";

/** Helvetica's advance widths (thousandths of an em); other characters are taken as 556. */
const WIDTHS: Record<string, number> = {
  " ": 278,
  ",": 278,
  ".": 278,
  "(": 333,
  ")": 333,
  "-": 333,
  I: 278,
  f: 278,
  i: 222,
  j: 222,
  l: 222,
  r: 333,
  t: 278,
  c: 500,
  k: 500,
  s: 500,
  v: 500,
  x: 500,
  y: 500,
  z: 500,
  m: 833,
  w: 722,
  A: 667,
  S: 667,
  T: 611,
  W: 944,
};

function justified(text: string, x: number, baseline: number, measure: number, size: number): string {
  const natural = ([...text].reduce((sum, ch) => sum + (WIDTHS[ch] ?? 556), 0) * size) / 1000;
  const spaces = text.split(" ").length - 1;
  return `BT /F1 ${size} Tf ${((measure - natural) / spaces).toFixed(3)} Tw ${x} ${baseline} Td (${text}) Tj ET`;
}

const DECLARATION = [
  "By signing below, the Shipper declares that the contents of this consignment are fully described",
  "above by the proper shipping name. They are classified, packaged, marked and labelled, and are",
  "in all respects in proper condition for transport. As shipper, I hereby certify that the goods are",
];

/** A ruled item table whose last band, without inner rules, holds a declaration set across the full width. */
function declarationForm(): Uint8Array {
  const xs = [72, 180, 290, 400, 540];
  const ys = [700, 684, 668, 652, 600];
  const lines = [
    ...ys.map((y) => `${xs[0]} ${y} m ${xs[4]} ${y} l S`),
    `${xs[0]} 700 m ${xs[0]} 600 l S`,
    `${xs[4]} 700 m ${xs[4]} 600 l S`,
    ...xs.slice(1, -1).map((x) => `${x} 700 m ${x} 652 l S`),
  ];
  const cells = [
    ["Item", "Count", "Type", "Weight"],
    ["Antifreeze", "40", "DM", "2200 g"],
    ["Coolant", "12", "TK", "90 g"],
  ].flatMap((row, r) =>
    row.map((text, c) => `BT /F1 9 Tf 0 Tw ${xs[c] + 4} ${ys[r] - 12} Td (${text}) Tj ET`),
  );
  const declaration = DECLARATION.map((line, i) => justified(line, 76, 640 - 12 * i, 460, 9));
  return onePagePdf(["0.5 w", ...lines, ...cells, ...declaration].join("\n"));
}

test("lines of prose set across a ruled table's columns are one paragraph, not a row per line", async () => {
  const { result } = await parseDocument({
    bytes: declarationForm(),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  const cells = markdownRows(result.markdown).flat();
  assert.ok(cells.includes("antifreeze"), result.markdown);
  // The declaration's lines are one cell: a sentence running from one line to the next is whole in it.
  assert.ok(
    cells.some((cell) =>
      cell.includes("fully described above by the proper shipping name they are classified"),
    ),
    result.markdown,
  );
  assert.ok(
    cells.some((cell) => cell.includes("labelled and are in all respects in proper condition")),
    result.markdown,
  );
});

test("a shipping form: its declaration under the item table reads as one paragraph", {
  timeout: 300_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "bill-of-lading-p1.pdf"));
  const cells = markdownRows(markdown).flat();
  assert.ok(
    cells.some((cell) =>
      cell.includes("as shipper i hereby certify that the liquid industrial by product s are fully"),
    ),
    markdown,
  );
});

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { parseDocument } from "../index.ts";
import { CLASSIFICATION_THRESHOLD, classifyPages } from "./classify.ts";
import { buildMixedSet, MIME_TYPES, PAGE_CLASSES, renderDocuments } from "./eval/extraction-set.ts";

const office = ["/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice"].some(existsSync);

const classes = [
  { name: "invoice", description: "An invoice: invoice number, amounts, tax and the total due" },
  { name: "application_form", description: "A filled application form with labelled fields and checkboxes" },
];

const pages = [
  "INVOICE\n\nInvoice No: 17\n\nSubtotal: $100.00\n\nTax: $20.00\n\nTotal Due: $120.00",
  "APPLICATION FORM\n\nName: Ada\n\nEmail: ada@example.org\n\nSmoker: ☐ Yes ☑ No\n\nSignature: ____",
  "The weather was mild for the season, with light winds from the west and some rain late in the day.",
];

test("each page goes to its best class with a reason; a page with no evidence matches none", async () => {
  const { document } = await parseDocument({ text: pages.join("\f"), mimeType: "text/plain" });
  const result = classifyPages(document, classes);
  assert.deepEqual(
    result.map((entry) => [entry.page_class, entry.page_numbers]),
    [
      ["invoice", [1]],
      ["application_form", [2]],
    ],
  );
  const invoiceReason = result[0].classification_reasons?.["1"] ?? "";
  assert.match(invoiceReason, /invoic/);
  assert.match(invoiceReason, /currency amounts/);
  assert.match(invoiceReason, new RegExp(`threshold ${CLASSIFICATION_THRESHOLD}`));
  assert.match(result[1].classification_reasons?.["2"] ?? "", /checkbox/);
  assert.equal(result[0].classification_reasons?.["3"], undefined);
});

test("classes come back in request order, one entry each, even when empty", async () => {
  const { document } = await parseDocument({ text: pages[2], mimeType: "text/plain" });
  const result = classifyPages(document, [...classes].reverse());
  assert.deepEqual(
    result.map((entry) => [entry.page_class, entry.page_numbers]),
    [
      ["application_form", []],
      ["invoice", []],
    ],
  );
  assert.deepEqual(classifyPages(document, []), []);
});

test("mixed PDF pages of invoices, forms and reports are told apart", {
  skip: !office && "no LibreOffice",
}, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-classify-test-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const mixed = buildMixedSet(2);
  const files = renderDocuments(mixed, ["pdf"], dir);
  for (const doc of mixed) {
    const bytes = files.get(`${doc.id}.pdf`) as Uint8Array;
    const { document } = await parseDocument({ bytes, mimeType: MIME_TYPES.pdf });
    assert.equal(document.pages.length, doc.pages.length, `${doc.id}: one page per part`);
    const result = classifyPages(document, PAGE_CLASSES);
    doc.pages.forEach((expected, index) => {
      const page = index + 1;
      const got = result.find((entry) => entry.page_numbers.includes(page))?.page_class ?? null;
      assert.equal(got, expected, `${doc.id} page ${page}`);
    });
  }
});

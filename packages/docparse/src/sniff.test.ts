import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { OOXML, sniffMimeType } from "./sniff.ts";
import { corpusPath, NO_CORPUS } from "./test-corpus.ts";

const EXPECTED: Record<string, string> = {
  docx: OOXML.docx,
  pptx: OOXML.pptx,
  xlsx: OOXML.xlsx,
  xlsm: OOXML.xlsm,
  doc: "application/msword",
  xls: "application/vnd.ms-excel",
  ppt: "application/vnd.ms-powerpoint",
  html: "text/html",
  nxml: "application/xml",
  csv: "text/csv",
  pdf: "application/pdf",
};

test("every corpus file of a known kind is recognised from its bytes alone", { skip: NO_CORPUS }, () => {
  const folders = ["docx", "pptx", "xlsx", "doc", "xls", "ppt", "html", "jats", "csv"];
  let checked = 0;
  for (const folder of folders) {
    const dir = corpusPath("docling/tests/data", folder, "sources");
    for (const name of readdirSync(dir)) {
      const expected = EXPECTED[path.extname(name).slice(1).toLowerCase()];
      if (!expected) continue;
      // A one-column CSV is plain text to anyone who is not told otherwise.
      if (name === "csv-single-column.csv") continue;
      assert.equal(sniffMimeType(readFileSync(path.join(dir, name))), expected, `${folder}/${name}`);
      checked++;
    }
  }
  assert.ok(checked > 50, `${checked} files checked`);
});

test("RTF, PKCS#7 in DER and PEM, XML, HTML without a doctype, and plain prose", () => {
  const text = (value: string) => new TextEncoder().encode(value);
  assert.equal(sniffMimeType(text("{\\rtf1\\ansi Hello}")), "application/rtf");
  const der = new Uint8Array([
    0x30, 0x82, 0x01, 0x00, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02,
  ]);
  assert.equal(sniffMimeType(der), "application/pkcs7-mime");
  assert.equal(
    sniffMimeType(text("-----BEGIN PKCS7-----\nMIIB\n-----END PKCS7-----\n")),
    "application/pkcs7-mime",
  );
  assert.equal(sniffMimeType(text('<?xml version="1.0"?>\n<catalog><book/></catalog>')), "application/xml");
  assert.equal(sniffMimeType(text("<div><p>Hello</p></div>")), "text/html");
  assert.equal(sniffMimeType(text("Dear team, the plan, as agreed, is below.\nThanks, Ann")), "text/plain");
  assert.equal(sniffMimeType(text("a;b;c\n1;2;3\n4;5;6\n")), "text/csv");
  // UTF-16 with a byte-order mark is text too.
  assert.equal(
    sniffMimeType(new Uint8Array([0xff, 0xfe, ...Buffer.from("<html><body>x</body></html>", "utf16le")])),
    "text/html",
  );
});

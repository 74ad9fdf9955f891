import assert from "node:assert/strict";
import { test } from "node:test";
import { zipSync } from "fflate";
import { parseDocument } from "../index.ts";
import { DocumentLoadError } from "../model.ts";
import { ZIP_LIMITS } from "./package.ts";
import { docx, xlsx, zipParts } from "./test-package.ts";

/** Bad input for every OOXML backend: each case must end with a DocumentLoadError that says why. */
const TYPES = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

async function rejects(bytes: Uint8Array, mimeType: string, reason: RegExp) {
  await assert.rejects(parseDocument({ bytes, mimeType }), (error: unknown) => {
    assert.ok(error instanceof DocumentLoadError, `expected a DocumentLoadError, got ${String(error)}`);
    assert.match(error.message, reason);
    return true;
  });
}

/** Rewrites the declared uncompressed size of every entry (local and central headers) of a zip. */
function declareSize(zip: Uint8Array, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let i = 0; i + 4 <= out.length; i++) {
    const signature = view.getUint32(i, true);
    if (signature === 0x04034b50) view.setUint32(i + 22, size, true);
    else if (signature === 0x02014b50) view.setUint32(i + 24, size, true);
  }
  return out;
}

for (const [format, mimeType] of Object.entries(TYPES)) {
  test(`${format}: bytes that are not a zip`, async () => {
    await rejects(
      new TextEncoder().encode("this is plain text, not an archive"),
      mimeType,
      /not a zip archive/,
    );
  });

  test(`${format}: an OLE compound file (password-protected or legacy binary)`, async () => {
    const ole = new Uint8Array(512);
    ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    await rejects(ole, mimeType, /OLE compound file \(a password-protected document/);
  });

  test(`${format}: a truncated zip`, async () => {
    const whole = format === "xlsx" ? xlsx([{ name: "S", data: "" }]) : docx("<w:p/>");
    await rejects(whole.subarray(0, Math.floor(whole.length / 2)), mimeType, /cannot be read|not a zip/);
  });

  test(`${format}: a zip without the main part`, async () => {
    await rejects(
      zipParts({ "hello.txt": "hi" }),
      mimeType,
      /has no (main document|workbook|presentation) part/,
    );
  });
}

test("a zip bomb (a highly compressible entry above the per-entry limit) is refused before inflating", async () => {
  const big = new Uint8Array(ZIP_LIMITS.maxEntryBytes + 1024);
  const bomb = zipSync({ "_rels/.rels": new Uint8Array(0), "word/document.xml": big }, { level: 9 });
  assert.ok(bomb.length < 200_000, "the bomb is small on disk");
  const before = process.memoryUsage().rss;
  await rejects(bomb, TYPES.docx, /would inflate to \d+ bytes, above the limit/);
  assert.ok(process.memoryUsage().rss - before < ZIP_LIMITS.maxEntryBytes / 2, "memory stays bounded");
});

test("an entry that inflates beyond the size it declares is refused, its output capped", async () => {
  const honest = docx(`<w:p><w:r><w:t>${"x".repeat(2_000_000)}</w:t></w:r></w:p>`);
  await rejects(declareSize(honest, 100), TYPES.docx, /inflates beyond its declared size/);
});

test("a declared total above the limit is refused", async () => {
  const parts: Record<string, string> = { "_rels/.rels": "<Relationships/>" };
  for (let i = 0; i < 5; i++) parts[`word/part${i}.xml`] = "<a/>";
  await rejects(
    declareSize(zipParts(parts), ZIP_LIMITS.maxEntryBytes),
    TYPES.docx,
    /would inflate to more than/,
  );
});

test("malformed XML in the main part names the part and the fault", async () => {
  await rejects(
    docx("<w:p><w:r><w:t>open</w:r></w:p>"),
    TYPES.docx,
    /word\/document\.xml is not well-formed XML: <\/w:r> does not close <w:t>/,
  );
  const unclosed = zipParts({
    "_rels/.rels":
      '<Relationships><Relationship Id="r" Type="x/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    "xl/workbook.xml": "<workbook><sheets>",
  });
  await rejects(unclosed, TYPES.xlsx, /xl\/workbook\.xml is not well-formed XML: <sheets> is never closed/);
  const deep = `${"<w:sdt><w:sdtContent>".repeat(5000)}${"</w:sdtContent></w:sdt>".repeat(5000)}`;
  await rejects(docx(deep), TYPES.docx, /nested deeper than/);
});

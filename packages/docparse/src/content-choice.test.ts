import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { zipSync } from "fflate";
import { chooseMimeType, officeAvailable, parseDocument, shutdownOfficePool } from "./index.ts";
import { corpusPath, NO_CORPUS } from "./test-corpus.ts";

/**
 * The bytes decide: the content's type selects the backend, the declared type is a hint, and a mismatch is a
 * warning on the result, never a failure.
 */

const corpus = (...parts: string[]) =>
  new Uint8Array(readFileSync(corpusPath("docling/tests/data", ...parts)));

describe("the content chooses the backend", { skip: NO_CORPUS }, () => {
  test("a DOCX sent as .doc, a PPTX as .ppt, a PDF as text: read by their content, with a warning", async () => {
    const cases: [Uint8Array, string, string, string][] = [
      [corpus("docx/sources/lorem_ipsum.docx"), "application/msword", "docx", "Lorem ipsum"],
      [corpus("pptx/sources/powerpoint_sample.pptx"), "application/vnd.ms-powerpoint", "pptx", ""],
      [corpus("pdf/sources/2305.03393v1-pg9.pdf"), "text/plain", "pdf", ""],
    ];
    for (const [bytes, declared, backend, words] of cases) {
      const { document, result } = await parseDocument({ bytes, mimeType: declared });
      assert.equal(document.backend, backend, declared);
      assert.ok(
        result.warnings.some((w) => w.startsWith(`The file was declared as ${declared} but its content is`)),
        `${declared}: ${result.warnings.join("; ")}`,
      );
      if (words) assert.match(result.markdown, new RegExp(words));
    }
  });

  test("a vague declared type is no mismatch; a text type the content agrees with keeps its reader", async () => {
    const pdf = corpus("pdf/sources/2305.03393v1-pg9.pdf");
    const vague = chooseMimeType({ bytes: pdf, mimeType: "application/octet-stream" });
    assert.deepEqual(vague, { mimeType: "application/pdf", warning: null });
    const markdown = new TextEncoder().encode("# Title\n\nA paragraph of markdown.");
    assert.deepEqual(chooseMimeType({ bytes: markdown, mimeType: "text/markdown" }), {
      mimeType: "text/markdown",
      warning: null,
    });
    const email = new TextEncoder().encode(
      "From: a@example.org\nSubject: Hello\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\nBody words.\n",
    );
    const { document, result } = await parseDocument({ bytes: email, mimeType: "text/plain" });
    assert.equal(document.backend, "email");
    assert.match(result.markdown, /^# Hello/);
    assert.ok(
      result.warnings.some((w) => /declared as text\/plain but its content is message\/rfc822/.test(w)),
    );
  });
});

describe("OpenDocument", {
  skip: (!officeAvailable() && "LibreOffice is not installed") || NO_CORPUS,
}, () => {
  after(() => shutdownOfficePool());
  const utf8 = (text: string) => new TextEncoder().encode(text);

  test("an ODT is read through LibreOffice, told from its bytes", { timeout: 300_000 }, async () => {
    const odt = zipSync({
      mimetype: [utf8("application/vnd.oasis.opendocument.text"), { level: 0 }],
      "META-INF/manifest.xml": utf8(`<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>`),
      "content.xml": utf8(`<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">
 <office:body><office:text>
  <text:h text:outline-level="1">Open Heading</text:h>
  <text:p>An OpenDocument paragraph of words.</text:p>
 </office:text></office:body>
</office:document-content>`),
    });
    const { result } = await parseDocument({ bytes: odt, mimeType: "application/octet-stream" });
    assert.match(result.markdown, /Open Heading/);
    assert.match(result.markdown, /An OpenDocument paragraph of words\./);
  });
});

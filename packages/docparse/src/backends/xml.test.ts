import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import { DocumentLoadError, type HeadingItem } from "../model.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";

test("a JATS article: title, authors, abstract, sections by level, tables, figure captions, references", {
  skip: NO_CORPUS,
}, async () => {
  const bytes = readFileSync(corpusPath("docling/tests/data", "jats/sources/pntd.0008301.nxml"));
  const { document, result } = await parseDocument({ bytes, mimeType: "application/xml" });
  assert.equal(document.backend, "jats");
  assert.equal(document.items[0].label, "title");
  assert.match(result.markdown, /^# Risk factors associated with failing pre-transmission/);
  assert.match(result.markdown, /\n\nClara R\. Burgert-Brucker, Kathryn L\. Zoerhoff/);
  assert.match(result.markdown, /\n## Abstract\n/);
  const headings = document.items.filter((item): item is HeadingItem => item.label === "section_header");
  assert.ok(headings.some((h) => h.level === 3 && h.text === "Data sources"));
  assert.ok(headings.some((h) => h.level === 4 && h.text === "Baseline prevalence"));
  assert.equal(document.items.filter((item) => item.label === "table").length, 2);
  assert.ok(
    document.items.some(
      (item) => item.label === "figure_caption" && /^Fig 1 Number of pre-TAS/.test(item.text),
    ),
  );
  assert.match(result.markdown, /## References\n\n- /);
});

test("other XML: element text in order, titles as headings; no external entity is read", async () => {
  const xml = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>
    <catalog><title>Books</title><book><name>Dune</name><note>A <b>classic</b>.</note></book><e>&x;</e></catalog>`;
  const { document, result } = await parseDocument({ text: xml, mimeType: "text/xml" });
  assert.equal(document.backend, "xml");
  assert.match(result.markdown, /^# Books\n\nDune\n\nA classic\.\n\n/);
  assert.doesNotMatch(result.markdown, /root:/);
});

test("text that is not XML is a DocumentLoadError; a truncated file keeps what it read, with a warning", async () => {
  await assert.rejects(parseDocument({ text: "just words", mimeType: "application/xml" }), DocumentLoadError);
  const { result } = await parseDocument({ text: "<doc><p>kept</p><p>cut", mimeType: "application/xml" });
  assert.match(result.markdown, /kept/);
  assert.equal(result.warnings.length, 1);
});

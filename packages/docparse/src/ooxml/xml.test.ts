import assert from "node:assert/strict";
import { test } from "node:test";
import { DocumentLoadError } from "../model.ts";
import { child, parseXml, textOf } from "./xml.ts";

test("elements by local name, attributes without prefixes, entities, CDATA and comments", () => {
  const root = parseXml(
    '<?xml version="1.0"?><!-- note --><w:p xmlns:w="urn:w" w:val="a &amp; b"><w:t>x &lt; y &#x263A;</w:t><w:t><![CDATA[<raw>]]></w:t></w:p>',
    "part.xml",
  );
  assert.equal(root.name, "p");
  assert.deepEqual(root.attrs, { val: "a & b" });
  assert.equal(textOf(root), "x < y ☺<raw>");
  assert.equal(textOf(child(root, "t") ?? root), "x < y ☺");
});

test("a '>' inside a quoted attribute does not end the tag", () => {
  const root = parseXml('<a title="1 > 0"><b/></a>', "part.xml");
  assert.equal(root.attrs.title, "1 > 0");
  assert.equal(child(root, "b")?.name, "b");
});

test("entities declared in a DTD are not expanded", () => {
  const root = parseXml('<!DOCTYPE a [<!ENTITY e "boom">]><a>&e;</a>', "part.xml");
  assert.equal(textOf(root), "&e;");
});

test("malformed XML is a DocumentLoadError naming the part", () => {
  for (const bad of ["<a><b></a>", "<a>", "", "<a", "</a>"]) {
    assert.throws(
      () => parseXml(bad, "word/document.xml"),
      (error: unknown) => error instanceof DocumentLoadError && /word\/document\.xml/.test(error.message),
      bad,
    );
  }
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import { DocumentLoadError, type TableItem } from "../model.ts";

const RTF = String.raw`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fcharset0 Times;}{\f1\fcharset161 Arial Greek;}}
{\stylesheet{\s0 Normal;}{\s1\outlinelevel0 heading 1;}{\s2 heading 2;}}
{\info{\title Hidden metadata}}{\header\pard Page header\par}
\pard\plain\s1 Caf\'e9 report\par
\pard\plain\s2 Second level\par
\pard\plain Some \b bold\b0  and \i italic\i0  text, \u8364?uro and {\f1 \'e1\'e2}.\par
{\listtext\pard\plain \'b7\tab}\pard\plain\ls1\ilvl0 first point\par
{\listtext\pard\plain \'b7\tab}\pard\plain\ls1\ilvl1 nested point\par
\trowd\cellx1000\cellx2000\pard\intbl Name\cell Qty\cell\row
\trowd\cellx1000\cellx2000\pard\intbl Apple\cell 3\cell\row
\pard After the table\par
{\*\unknowndestination ignored}{\footnote a footnote}}`;

test("RTF read directly: headings from styles, bold and italic, code pages, Unicode, lists, tables", async () => {
  const { document, result } = await parseDocument({
    text: RTF,
    mimeType: "application/rtf",
    options: { parsing: { table_output_mode: "markdown" } },
  });
  assert.equal(document.backend, "rtf");
  assert.equal(
    result.markdown,
    [
      "# Café report",
      "## Second level",
      "Some **bold** and *italic* text, €uro and αβ.",
      "- first point\n    - nested point",
      "| Name | Qty |\n| --- | --- |\n| Apple | 3 |",
      "After the table",
    ].join("\n\n"),
  );
  const table = document.items.find((item): item is TableItem => item.label === "table");
  assert.equal(table?.numRows, 2);
});

test("a file that is not RTF is a DocumentLoadError", async () => {
  await assert.rejects(parseDocument({ text: "plain", mimeType: "text/rtf" }), DocumentLoadError);
  await assert.rejects(
    parseDocument({ text: `${"{".repeat(5000)}\\rtf`, mimeType: "text/rtf" }),
    DocumentLoadError,
  );
});

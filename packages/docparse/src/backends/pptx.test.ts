import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import type { FigureItem, ListItem, TableItem, TextItem } from "../model.ts";
import { pptx } from "../ooxml/test-package.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";

const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";

async function parse(name: string) {
  const bytes = new Uint8Array(readFileSync(corpusPath("docling/tests/data", `pptx/sources/${name}`)));
  return parseDocument({ bytes, mimeType: PPTX, options: { parsing: { table_output_mode: "markdown" } } });
}

test("powerpoint_sample.pptx: a sized page per slide, titles, a table with spans, lists, speaker notes as furniture", {
  skip: NO_CORPUS,
}, async () => {
  const { document, result } = await parse("powerpoint_sample.pptx");
  assert.equal(document.pages.length, 3);
  assert.ok(document.pages.every((page) => page.size !== null && page.size.width > page.size.height));
  const titles = document.items
    .filter((item): item is TextItem => item.label === "title")
    .map((item) => item.text);
  assert.deepEqual(titles.slice(0, 2), ["Test Table Slide", "Second slide title"]);
  const table = document.items.find((item): item is TableItem => item.label === "table");
  const class1 = table?.cells.find((cell) => cell.text === "Class1");
  assert.deepEqual([class1?.row, class1?.col, class1?.colSpan], [0, 1, 3]);
  assert.ok(table?.cells.some((cell) => cell.text === "R3" && cell.rowSpan === 2));
  const lists = document.items.filter((item): item is ListItem => item.label === "list_item");
  assert.ok(lists.some((item) => item.text === "With foo" && !item.ordered));
  assert.ok(lists.some((item) => item.text === "List item4" && item.ordered && item.marker === "1."));
  const notes = document.items.filter(
    (item): item is TextItem => item.label === "text" && item.speakerNotes === true,
  );
  assert.ok(notes.length > 0);
  assert.ok(notes.every((item) => item.furniture && !result.markdown.includes(item.text)));
  // Boxes in points inside the slide.
  const boxed = document.items.filter((item) => item.prov[0].bbox !== null);
  assert.ok(boxed.length > 0);
  const width = document.pages[0].size?.width ?? 0;
  assert.ok(boxed.every((item) => (item.prov[0].bbox?.x2 ?? 0) <= width + 1));
});

test("powerpoint_sample.pptx: shapes read top to bottom, a higher box before a lower one", {
  skip: NO_CORPUS,
}, async () => {
  const { result } = await parse("powerpoint_sample.pptx");
  assert.ok(result.markdown.indexOf("A rectangle shape") < result.markdown.indexOf("Let’s introduce a list"));
});

test("pptx_chart.pptx: a chart is a figure with its type and title, its series a table", {
  skip: NO_CORPUS,
}, async () => {
  const { document } = await parse("pptx_chart.pptx");
  const chart = document.items.find(
    (item): item is FigureItem => item.label === "figure" && item.chart !== undefined,
  );
  assert.deepEqual(
    { type: chart?.chart?.type, title: chart?.chart?.title },
    { type: "bar", title: "Wild Duck Observations by Year" },
  );
  const [caption, data] = document.items.slice(document.items.indexOf(chart as FigureItem) + 1) as [
    TextItem,
    TableItem,
  ];
  assert.deepEqual([caption.label, caption.text], ["table_caption", "Bar chart"]);
  assert.equal(data.label, "table");
  assert.equal(data.caption, "Bar chart");
  assert.deepEqual(
    data.cells.filter((cell) => cell.row === 0).map((cell) => cell.text),
    ["", "Freshwater Ducks", "Saltwater Ducks"],
  );
  assert.deepEqual(
    data.cells.filter((cell) => cell.row === 4).map((cell) => cell.text),
    ["2022", "175", "130"],
  );
});

test("powerpoint_comments.pptx: review comments follow their slide's content, with author and time", {
  skip: NO_CORPUS,
}, async () => {
  const { document, result } = await parse("powerpoint_comments.pptx");
  const comments = document.items.filter(
    (item): item is TextItem => item.label === "text" && item.comment !== undefined,
  );
  assert.deepEqual(comments[0].comment, { author: "John Reviewer (JR)", time: "2026-01-01T00:00:00" });
  assert.equal(comments[0].prov[0].page, 1);
  assert.match(
    result.markdown,
    /\[author: Jane Smith \(JS\), time: 2026-06-18T17:35:35\.236\]: This is a sample response/,
  );
});

test("generated slides: SmartArt node text as a list under a figure, hidden slides kept and flagged, shapes by position", async () => {
  const shape = (text: string, y: number) =>
    `<p:sp><p:nvSpPr><p:cNvPr id="2" name="t"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="0" y="${y}"/><a:ext cx="127000" cy="127000"/></a:xfrm></p:spPr><p:txBody><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
  const smartArt = `<p:graphicFrame><p:xfrm><a:off x="0" y="2540000"/><a:ext cx="254000" cy="254000"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram"><dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" r:dm="rDm"/></a:graphicData></a:graphic></p:graphicFrame>`;
  const data = `<?xml version="1.0"?><dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst><dgm:pt modelId="0" type="doc"><dgm:t><a:p><a:r><a:t>root</a:t></a:r></a:p></dgm:t></dgm:pt><dgm:pt modelId="1"><dgm:t><a:p><a:r><a:t>Plan</a:t></a:r></a:p></dgm:t></dgm:pt><dgm:pt modelId="2"><dgm:t><a:p><a:r><a:t>Build</a:t></a:r></a:p></dgm:t></dgm:pt></dgm:ptLst></dgm:dataModel>`;
  // The first slide's SmartArt points at its data part.
  const withRels = pptx(
    [
      {
        tree: shape("Lower", 1270000) + smartArt + shape("Upper", 127000),
        rels: [{ id: "rDm", type: "diagramData", target: "../diagrams/data1.xml" }],
      },
      { tree: shape("Secret slide", 0), attrs: 'show="0"' },
    ],
    { "ppt/diagrams/data1.xml": data },
  );
  const { document, result } = await parseDocument({
    bytes: withRels,
    mimeType: PPTX,
    options: { parsing: { table_output_mode: "markdown" } },
  });
  assert.equal(result.markdown, "Upper\n\nLower\n\n<!-- image -->\n\n- Plan\n- Build\n\nSecret slide");
  assert.deepEqual(document.pages[0].size, { width: 960, height: 540 });
  assert.deepEqual(document.items[0].prov[0].bbox, { x1: 0, y1: 10, x2: 10, y2: 20 });
  assert.ok(result.warnings.some((warning) => /Slide 2 is hidden/.test(warning)));
});

test("remove_strikethrough_lines drops struck runs of a slide and counts its page", async () => {
  const tree = `<p:sp><p:nvSpPr><p:cNvPr id="2" name="t"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:p><a:r><a:t xml:space="preserve">Price </a:t></a:r><a:r><a:rPr strike="sngStrike"/><a:t>10</a:t></a:r><a:r><a:t xml:space="preserve"> 8</a:t></a:r></a:p></p:txBody></p:sp>`;
  const bytes = pptx([{ tree: "" }, { tree }]);
  const kept = await parseDocument({ bytes, mimeType: PPTX });
  assert.equal(kept.result.markdown, "Price ~~10~~ 8");
  const removed = await parseDocument({
    bytes,
    mimeType: PPTX,
    options: { parsing: { remove_strikethrough_lines: true } },
  });
  assert.equal(removed.result.markdown, "Price 8");
  assert.equal(removed.result.usage.strikethrough_removed_pages, 1);
  assert.deepEqual(removed.document.struckPages, [2]);
});

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import {
  ENRICHMENT_OPTION_DEFAULTS,
  type EnrichmentOptions,
  type PageFragment,
  ParseResult,
} from "@svc/contract";
import fastJson from "fast-json-stringify";
import { unzipSync, zipSync } from "fflate";
import { rgb } from "pdf-lib";
import sharp from "sharp";
import { Compile } from "typebox/compile";
import {
  chartPng,
  drawGrid,
  drawGridText,
  newPdf,
  PAGE_HEIGHT,
  PAGE_WIDTH,
  pdfBytes,
  textImage,
} from "../backends/pdf-fixtures.ts";
import {
  applyEnrichment,
  documentViews,
  officeAvailable,
  parseDocument,
  shutdownOfficePool,
} from "../index.ts";
import { FONT_FAMILY_NAMES, type FontFamily, fontFamilyEnv } from "../libreoffice/font-families.ts";
import type { DocumentModel, FigureItem, TableItem } from "../model.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { PAGE_IMAGE_MAX_BYTES } from "./page-images.ts";

const run = promisify(execFile);

after(() => shutdownOfficePool());

const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

function options(enabled: Partial<EnrichmentOptions>): Required<EnrichmentOptions> {
  return { ...ENRICHMENT_OPTION_DEFAULTS, ...enabled } as Required<EnrichmentOptions>;
}

async function parsed(
  file: string,
  mimeType: string,
  enabled: Partial<EnrichmentOptions>,
  bytes?: Uint8Array,
): Promise<{ document: DocumentModel; bytes: Uint8Array }> {
  const source = bytes ?? new Uint8Array(await readFile(file));
  const { document } = await parseDocument({ bytes: source, mimeType });
  await applyEnrichment(document, { bytes: source, mimeType }, options(enabled));
  return { document, bytes: source };
}

function fragments(document: DocumentModel, type: string): PageFragment[] {
  return documentViews(document)
    .pages.flatMap((page) => page.page_fragments ?? [])
    .filter((fragment) => fragment.fragment_type === type);
}

interface ChartSeriesContent {
  chart: {
    chart_type: string;
    title: string | null;
    categories: string[];
    series: { name: string; values: (number | null)[] }[];
    source: string;
  };
}

/**
 * The series of every chart part in an OOXML package, read straight from its XML: names and the numbers cached
 * in `c:val` (the oracle the extracted data is checked against, independent of the backend's reader).
 */
function chartPartSeries(pkg: Uint8Array): { name: string; values: number[] }[][] {
  const files = unzipSync(pkg);
  return Object.keys(files)
    .filter((name) => /charts\/chart\d+\.xml$/.test(name))
    .sort()
    .map((name) => {
      const xml = new TextDecoder().decode(files[name]);
      return [...xml.matchAll(/<c:ser>([\s\S]*?)<\/c:ser>/g)].map((ser) => {
        const tx = /<c:tx>[\s\S]*?<c:v>([^<]*)<\/c:v>/.exec(ser[1]);
        const val = /<c:val>([\s\S]*?)<\/c:val>/.exec(ser[1])?.[1] ?? "";
        return {
          name: tx?.[1] ?? "",
          values: [...val.matchAll(/<c:v>([^<]*)<\/c:v>/g)].map((v) => Number(v[1])),
        };
      });
    });
}

test("PPTX charts become chart fragments whose series are the chart parts' numbers", {
  skip: NO_CORPUS,
}, async () => {
  const file = corpusPath("docling/tests/data", "pptx/sources/pptx_chart.pptx");
  const { document, bytes } = await parsed(file, PPTX, { chart_extraction: true });
  const expected = chartPartSeries(bytes);
  const charts = fragments(document, "chart").map(
    (fragment) => (fragment.content as unknown as ChartSeriesContent).chart,
  );
  assert.equal(charts.length, expected.length);
  assert.ok(charts.length >= 1);
  for (const [i, chart] of charts.entries()) {
    assert.equal(chart.source, "chart_part");
    assert.deepEqual(
      chart.series.map((series) => ({ name: series.name, values: series.values })),
      expected[i],
    );
    for (const series of chart.series) assert.equal(series.values.length, chart.categories.length);
  }
  const first = charts[0];
  assert.equal(first.title, "Wild Duck Observations by Year");
  assert.deepEqual(first.categories, ["2019", "2020", "2021", "2022"]);
  // Without chart_extraction the same figures stay figures.
  const plain = await parsed(file, PPTX, {});
  assert.equal(fragments(plain.document, "chart").length, 0);
  assert.ok(fragments(plain.document, "figure").length >= charts.length);
});

test("XLSX chart sheets give their chart's numbers", { skip: NO_CORPUS }, async () => {
  const file = corpusPath("docling/tests/data", "xlsx/sources/xlsx_03_chartsheet.xlsx");
  const { document, bytes } = await parsed(file, XLSX, { chart_extraction: true });
  const [expected] = chartPartSeries(bytes);
  const [chart] = fragments(document, "chart").map(
    (fragment) => (fragment.content as unknown as ChartSeriesContent).chart,
  );
  assert.deepEqual(chart.series, expected);
});

/** One LibreOffice profile and font set a family, for the whole file: a profile's first start costs seconds. */
const officeDirs = new Map<FontFamily, Promise<string>>();
after(() =>
  Promise.all([...officeDirs.values()].map(async (dir) => rm(await dir, { recursive: true, force: true }))),
);

/**
 * PDFs of office files through LibreOffice, laid out in one font family install.sh guarantees. The files are
 * converted by one LibreOffice start, in the order given.
 */
async function officeToPdfs(
  files: readonly (readonly [name: string, bytes: Uint8Array])[],
  font: FontFamily = "DejaVu Sans",
): Promise<Uint8Array[]> {
  if (!officeDirs.has(font)) officeDirs.set(font, mkdtemp(path.join(tmpdir(), "enrich-soffice-")));
  const dir = (await officeDirs.get(font)) as string;
  const work = await mkdtemp(path.join(dir, "job-"));
  try {
    const inputs = await Promise.all(
      files.map(async ([name, bytes]) => {
        const input = path.join(work, name);
        await writeFile(input, bytes);
        return input;
      }),
    );
    await run(
      "soffice",
      [
        `-env:UserInstallation=file://${dir}/profile`,
        "--headless",
        "--convert-to",
        "pdf",
        "--outdir",
        work,
        ...inputs,
      ],
      { timeout: 120_000, env: { ...fontFamilyEnv(font, path.join(dir, "font")), HOME: dir } },
    );
    return await Promise.all(
      inputs.map(async (input) => new Uint8Array(await readFile(input.replace(/\.\w+$/, ".pdf")))),
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A PDF of one office file through LibreOffice (`officeToPdfs`). */
async function officeToPdf(name: string, bytes: Uint8Array, font?: FontFamily): Promise<Uint8Array> {
  const [pdf] = await officeToPdfs([[name, bytes]], font);
  return pdf;
}

/** The corpus chart sheet with its chart changed by `edit` (and a sheet cell by `editSheet`). */
function variant(
  source: Uint8Array,
  edit: (xml: string) => string,
  editSheet: (xml: string) => string = (x) => x,
): Uint8Array {
  const files = unzipSync(source);
  const text = (name: string) => new TextDecoder().decode(files[name]);
  return zipSync({
    ...files,
    "xl/charts/chart1.xml": new TextEncoder().encode(edit(text("xl/charts/chart1.xml"))),
    "xl/worksheets/sheet1.xml": new TextEncoder().encode(editSheet(text("xl/worksheets/sheet1.xml"))),
  });
}

const NO_OFFICE = officeAvailable() ? false : "LibreOffice is not installed";

/** The corpus chart as a line chart; `lines: false` keeps its series' outline unpainted (markers only). */
function lineChart(xlsx: Uint8Array, lines: boolean): Uint8Array {
  return variant(xlsx, (xml) => {
    const line = xml
      .replace("<c:barChart>", "<c:lineChart>")
      .replace("</c:barChart>", "</c:lineChart>")
      .replace(/<c:(barDir|gapWidth|overlap|invertIfNegative)\b[^>]*\/>/g, "");
    return lines ? line.replace(/<a:ln w="0"><a:noFill\/><\/a:ln>/g, "") : line;
  });
}

test("bar and line charts drawn as vectors in a PDF read back as the chart part's numbers", {
  skip: NO_CORPUS || NO_OFFICE,
}, async () => {
  const xlsx = new Uint8Array(
    await readFile(corpusPath("docling/tests/data", "xlsx/sources/xlsx_03_chartsheet.xlsx")),
  );
  const cases: { name: string; file: Uint8Array; negative?: boolean; type?: string }[] = [
    { name: "columns", file: xlsx },
    { name: "line", file: lineChart(xlsx, true), type: "line" },
    {
      name: "horizontal",
      file: variant(xlsx, (xml) => xml.replace('<c:barDir val="col"/>', '<c:barDir val="bar"/>')),
    },
    {
      name: "negative",
      // A value below zero in the sheet (LibreOffice draws from the cells) and in the chart's cache.
      file: variant(
        xlsx,
        (xml) => xml.replace("<c:v>95</c:v>", "<c:v>-40</c:v>"),
        (xml) => xml.replace('<c r="C3" s="1" t="n"><v>95</v>', '<c r="C3" s="1" t="n"><v>-40</v>'),
      ),
      negative: true,
    },
  ];
  // Each chart laid out in font families with different metrics reads the same numbers.
  const pdfs = new Map<string, Uint8Array>();
  for (const font of FONT_FAMILY_NAMES) {
    const converted = await officeToPdfs(
      cases.map((entry) => [`${entry.name}.xlsx`, entry.file] as const),
      font,
    );
    for (const [i, entry] of cases.entries()) pdfs.set(`${entry.name} in ${font}`, converted[i]);
  }
  for (const [font, entry] of FONT_FAMILY_NAMES.flatMap((font) =>
    cases.map((entry) => [font, entry] as const),
  )) {
    const [expected] = chartPartSeries(entry.file);
    if (entry.negative) assert.ok(expected[1].values.includes(-40), "the variant has a negative value");
    const what = `${entry.name} in ${font}`;
    const pdf = pdfs.get(what) as Uint8Array;
    const { document } = await parsed(
      "",
      "application/pdf",
      { chart_extraction: true, figure_summarization: true },
      pdf,
    );
    const charts = fragments(document, "chart");
    assert.equal(charts.length, 1, what);
    const { chart, summary } = charts[0].content as unknown as ChartSeriesContent & { summary: string };
    assert.equal(chart.source, "vector", what);
    assert.equal(chart.chart_type, entry.type ?? "bar");
    assert.equal(chart.title, "Wild Duck Observations by Year");
    assert.deepEqual(chart.categories, ["2019", "2020", "2021", "2022", "2023", "2024"], what);
    assert.deepEqual(chart.series, expected, what);
    assert.match(summary, entry.type === "line" ? /^Line chart/ : /^Bar chart/);
    // The markdown shows the chart's data where the chart is.
    const row = `| ${chart.categories[1]} | ${expected.map((series) => series.values[1]).join(" | ")} |`;
    assert.ok(documentViews(document).markdown.includes(row), `${what}: ${row}`);
    // The axis labels the layout read as text are inside the chart now, not loose paragraphs.
    const loose = fragments(document, "text").map(
      (fragment) => (fragment.content as { content: string }).content,
    );
    assert.ok(!loose.includes("180"), `${what}: ${loose.join(" | ")}`);
  }
  // Charts whose series cannot be told apart are left alone rather than misread: stacked bars, and line charts
  // drawn as markers only.
  const stacked = variant(xlsx, (xml) =>
    xml
      .replace('<c:grouping val="clustered"/>', '<c:grouping val="stacked"/>')
      .replace("</c:barChart>", '<c:overlap val="100"/></c:barChart>'),
  );
  const markers = lineChart(xlsx, false);
  const alone = [
    ["stacked.xlsx", stacked],
    ["markers.xlsx", markers],
  ] as const;
  const converted = await officeToPdfs(alone);
  for (const [i, [name]] of alone.entries()) {
    const pdf = converted[i];
    const { document } = await parsed("", "application/pdf", { chart_extraction: true }, pdf);
    assert.equal(fragments(document, "chart").length, 0, name);
  }
});

test("a slide deck printed to PDF: its vector chart reads as the chart part's values, its raster chart is told a chart", {
  skip: NO_CORPUS || NO_OFFICE,
}, async () => {
  const deck = new Uint8Array(
    await readFile(corpusPath("docling/tests/data", "pptx/sources/pptx_chart.pptx")),
  );
  const [expected] = chartPartSeries(deck);
  const pdf = await officeToPdf("deck.pptx", deck);
  const { document } = await parsed(
    "",
    "application/pdf",
    { chart_extraction: true, figure_summarization: true },
    pdf,
  );
  const charts = fragments(document, "chart").map(
    (fragment) => (fragment.content as unknown as ChartSeriesContent).chart,
  );
  assert.equal(charts.length, 1, "the 3-D chart is drawn as a picture: no vector chart to read");
  // The slide's chart has no legend: series are named by position, their values are the part's.
  assert.deepEqual(
    charts[0].series.map((series) => series.values),
    expected.map((series) => series.values),
  );
  assert.deepEqual(charts[0].categories, ["2019", "2020", "2021", "2022"]);
  const pictures = fragments(document, "figure").map((f) => (f.content as { summary: string }).summary);
  assert.equal(pictures.length, 1);
  assert.match(pictures[0], /^Chart \(\d+ numeric labels line its edge\)/);
});

test("a Word line chart printed to PDF reads back as its chart part's series", {
  skip: NO_CORPUS || NO_OFFICE,
}, async () => {
  const docx = new Uint8Array(
    await readFile(corpusPath("docling/tests/data", "docx/sources/drawingml.docx")),
  );
  const [expected] = chartPartSeries(docx);
  assert.equal(expected.length, 3);
  const { document } = await parsed(
    "",
    "application/pdf",
    { chart_extraction: true },
    await officeToPdf("w.docx", docx),
  );
  const charts = fragments(document, "chart").map(
    (fragment) => (fragment.content as unknown as ChartSeriesContent).chart,
  );
  assert.equal(charts.length, 1);
  assert.equal(charts[0].chart_type, "line");
  assert.deepEqual(charts[0].categories, ["Category 1", "Category 2", "Category 3", "Category 4"]);
  assert.deepEqual(charts[0].series, expected);
});

test("table summaries state the table's shape, headers and column figures", { skip: NO_CORPUS }, async () => {
  const file = corpusPath("docling/tests/data", "pdf/sources/2305.03393v1-pg9.pdf");
  const { document } = await parsed(file, "application/pdf", { table_summarization: true });
  const tables = fragments(document, "table");
  assert.equal(tables.length, 1);
  const summary = (tables[0].content as { summary?: string | null }).summary ?? "";
  const table = document.items.find((item): item is TableItem => item.label === "table") as TableItem;
  assert.ok(summary.startsWith(`Table with ${table.numRows} rows and ${table.numCols} columns`), summary);
  for (const header of ["# enc-layers", "# dec-layers", "Language", "mAP (0.75)"])
    assert.ok(summary.includes(`"${header}"`), header);
  // The paper's table: encoder layers 6, 4, 2, 4 and decoder layers 6, 4, 4, 2.
  assert.ok(summary.includes(`"# enc-layers": 4 values from 2 to 6, sum 16`), summary);
  assert.ok(summary.includes(`"# dec-layers": 4 values from 2 to 6, sum 16`), summary);
  // Without the option no summary is made.
  const plain = await parsed(file, "application/pdf", {});
  assert.equal((fragments(plain.document, "table")[0].content as { summary?: string | null }).summary, null);
});

test("a chart's data table is summarized with its series' figures, years not summed", {
  skip: NO_CORPUS,
}, async () => {
  const file = corpusPath("docling/tests/data", "pptx/sources/pptx_chart.pptx");
  const { document, bytes } = await parsed(file, PPTX, { table_summarization: true });
  const [[fresh, salt]] = chartPartSeries(bytes);
  const summary = (fragments(document, "table")[0].content as { summary: string }).summary;
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  for (const series of [fresh, salt]) {
    const fact = `"${series.name}": ${series.values.length} values from ${Math.min(...series.values)} to ${Math.max(...series.values)}, sum ${sum(series.values)}`;
    assert.ok(summary.includes(fact), `${fact} in ${summary}`);
  }
  assert.match(summary, /4 years from 2019 to 2022/);
  assert.doesNotMatch(summary, /sum 8082/);
});

test("hooks replace the offline methods, with the prompt, the table's markdown and the figure's picture", {
  skip: NO_CORPUS,
}, async () => {
  const file = corpusPath("docling/tests/data", "pdf/sources/picture_classification.pdf");
  const bytes = new Uint8Array(await readFile(file));
  const { document } = await parseDocument({ bytes, mimeType: "application/pdf" });
  const seen: { prompt: string | null; width: number; height: number; box: number }[] = [];
  await applyEnrichment(
    document,
    { bytes, mimeType: "application/pdf" },
    options({ figure_summarization: true, figure_summarization_prompt: "Describe it" }),
    {
      async summarizeFigure(figure: FigureItem, image: Uint8Array | null, prompt: string | null) {
        assert.ok(image, "a picture of the figure is given");
        const meta = await sharp(image).metadata();
        assert.equal(meta.format, "png");
        const bbox = figure.prov[0].bbox as NonNullable<FigureItem["prov"][0]["bbox"]>;
        seen.push({
          prompt,
          width: meta.width ?? 0,
          height: meta.height ?? 0,
          box: (bbox.x2 - bbox.x1) / (bbox.y2 - bbox.y1),
        });
        return `provider summary ${seen.length}`;
      },
    },
  );
  assert.ok(seen.length >= 1);
  for (const entry of seen) {
    assert.equal(entry.prompt, "Describe it");
    assert.ok(Math.abs(entry.width / entry.height - entry.box) < 0.05, "the crop has the figure's shape");
  }
  const summaries = fragments(document, "figure").map(
    (fragment) => (fragment.content as { summary?: string | null }).summary,
  );
  assert.deepEqual(
    summaries,
    seen.map((_, i) => `provider summary ${i + 1}`),
  );

  const pptx = corpusPath("docling/tests/data", "pptx/sources/pptx_chart.pptx");
  const deck = new Uint8Array(await readFile(pptx));
  const parsedDeck = await parseDocument({ bytes: deck, mimeType: PPTX });
  const markdowns: string[] = [];
  await applyEnrichment(
    parsedDeck.document,
    { bytes: deck, mimeType: PPTX },
    options({ table_summarization: true, table_summarization_prompt: "One line please" }),
    {
      async summarizeTable(_table, markdown, prompt) {
        assert.equal(prompt, "One line please");
        markdowns.push(markdown);
        return "from the provider";
      },
    },
  );
  assert.ok(markdowns.length >= 1);
  assert.match(markdowns[0], /\| 2019 \| 120 \| 80 \|/);
  for (const table of fragments(parsedDeck.document, "table")) {
    assert.equal((table.content as { summary?: string }).summary, "from the provider");
  }
});

test("figure summaries state the caption and the kind of figure", { skip: NO_CORPUS }, async () => {
  const file = corpusPath("docling/tests/data", "pdf/sources/picture_classification.pdf");
  const { document } = await parsed(file, "application/pdf", { figure_summarization: true });
  const summaries = fragments(document, "figure").map(
    (fragment) => (fragment.content as { summary: string }).summary,
  );
  assert.equal(summaries.length, 2);
  assert.match(summaries[0], /Caption: "Figure 1: This is an example image\."/);
  assert.match(summaries[1], /Caption: "Figure 2: This is an example image\."/);
  for (const summary of summaries) assert.match(summary, /^(Chart|Diagram|Photo|Logo|Image) \(/);
});

async function pngOf(base64: string): Promise<{ width: number; height: number; bytes: number }> {
  const png = Buffer.from(base64, "base64");
  assert.deepEqual(
    [...png.subarray(0, 8)],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    "a PNG signature",
  );
  const meta = await sharp(png).metadata();
  assert.equal(meta.format, "png");
  return { width: meta.width ?? 0, height: meta.height ?? 0, bytes: png.byteLength };
}

test("page images are PNGs of each page's shape, bounded in size", { skip: NO_CORPUS }, async () => {
  const pdf = corpusPath("docling/tests/data", "pdf/sources/multi_page.pdf");
  const { document } = await parsed(pdf, "application/pdf", { include_full_page_image: true });
  const pages = documentViews(document).pages;
  assert.ok(pages.length >= 2);
  for (const page of pages) {
    assert.ok(page.page_image, `page ${page.page_number} has an image`);
    const image = await pngOf(page.page_image);
    const [width, height] = page.dimensions as number[];
    assert.ok(
      Math.abs(image.width / image.height - width / height) < 0.01,
      `page ${page.page_number}'s shape`,
    );
    assert.ok(image.bytes <= PAGE_IMAGE_MAX_BYTES);
  }
  // page_range: only the pages parsed get images, when the caller says which.
  const bytes = new Uint8Array(await readFile(pdf));
  const ranged = await parseDocument({ bytes, mimeType: "application/pdf", options: { pageRange: "2" } });
  await applyEnrichment(
    ranged.document,
    { bytes, mimeType: "application/pdf" },
    options({ include_full_page_image: true }),
    {},
    { pages: [2] },
  );
  assert.deepEqual(
    ranged.document.pages.filter((page) => page.image).map((page) => page.pageNumber),
    [2],
  );

  const webp = corpusPath("docling/tests/data", "webp/sources/webp-test.webp");
  const raster = await parsed(webp, "image/webp", { include_full_page_image: true });
  const [page] = documentViews(raster.document).pages;
  const image = await pngOf(page.page_image as string);
  const source = await sharp(await readFile(webp)).metadata();
  assert.ok(Math.abs(image.width / image.height - (source.width ?? 0) / (source.height ?? 1)) < 0.01);

  // A Word document has no pages to picture (one model page for the whole flow): none, and a warning says why.
  const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
  const word = await parsed(corpusPath("docling/tests/data", "docx/sources/drawingml.docx"), DOCX, {
    include_full_page_image: true,
  });
  assert.ok(documentViews(word.document).pages.every((entry) => entry.page_image === undefined));
  assert.ok(
    word.document.warnings.some((warning) =>
      warning.startsWith("Page images are made of PDF, image and slide"),
    ),
  );
});

test("slides get page images printed by LibreOffice, one per slide, of the slide's shape", {
  skip: NO_CORPUS || NO_OFFICE,
}, async () => {
  const deck = await parsed(corpusPath("docling/tests/data", "pptx/sources/pptx_chart.pptx"), PPTX, {
    include_full_page_image: true,
    chart_extraction: true,
  });
  const pages = documentViews(deck.document).pages;
  assert.equal(pages.length, 2);
  for (const page of pages) {
    const image = await pngOf(page.page_image as string);
    assert.ok(Math.abs(image.width / image.height - 720 / 540) < 0.01);
  }
  // The printout is a picture only: its drawn charts are not read again (the deck's chart parts are the data).
  assert.equal(fragments(deck.document, "chart").length, 2);
  assert.ok(
    deck.document.items.every((item) => item.label !== "figure" || item.chartData?.origin !== "vector"),
  );
});

test("enriched results validate against the contract and survive its serializer", {
  skip: NO_CORPUS,
}, async () => {
  const file = corpusPath("docling/tests/data", "pptx/sources/pptx_chart.pptx");
  const { document } = await parsed(file, PPTX, {
    chart_extraction: true,
    table_summarization: true,
    figure_summarization: true,
  });
  const views = documentViews(document);
  const pdf = await parsed(
    corpusPath("docling/tests/data", "pdf/sources/picture_classification.pdf"),
    "application/pdf",
    {
      include_full_page_image: true,
      figure_summarization: true,
    },
  );
  const result = {
    parse_id: "parse_1",
    status: "successful",
    created_at: "2026-01-01T00:00:00Z",
    parsed_pages_count: views.parsed_pages_count,
    pages: [...views.pages, ...documentViews(pdf.document).pages],
    chunks: views.chunks,
  };
  const check = Compile(ParseResult);
  assert.ok(check.Check(result), JSON.stringify([...check.Errors(result)].slice(0, 3)));
  const round = JSON.parse(fastJson(ParseResult as object)(result));
  assert.deepEqual(round.pages, JSON.parse(JSON.stringify(result.pages)));
  assert.ok(round.pages.some((page: { page_image?: string }) => typeof page.page_image === "string"));
  assert.ok(
    round.pages.some((page: { page_fragments: { content: { chart?: unknown } }[] }) =>
      page.page_fragments.some((fragment) => fragment.content.chart !== undefined),
    ),
  );
});

test("readChart reads raster charts: its data becomes a chart fragment from a vision source", async () => {
  const { pdf } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const image = await pdf.embedPng(await chartPng(400, 300));
  page.drawImage(image, { x: 100, y: PAGE_HEIGHT - 100 - 300, width: 400, height: 300 });
  const bytes = await pdfBytes(pdf);
  const { document } = await parseDocument({ bytes, mimeType: "application/pdf" });
  const shown: { width: number; height: number }[] = [];
  await applyEnrichment(
    document,
    { bytes, mimeType: "application/pdf" },
    options({ chart_extraction: true }),
    {
      async readChart(_figure, png) {
        const meta = await sharp(png).metadata();
        shown.push({ width: meta.width ?? 0, height: meta.height ?? 0 });
        return {
          chartType: "bar",
          title: null,
          categories: ["a", "b", "c", "d"],
          series: [{ name: "share", values: [0.4, 0.75, 0.55, 0.9] }],
          origin: "chart_part",
        };
      },
    },
  );
  assert.equal(shown.length, 1);
  assert.ok(Math.abs(shown[0].width / shown[0].height - 4 / 3) < 0.02, "the figure's picture is shown");
  const [chart] = fragments(document, "chart").map((f) => (f.content as unknown as ChartSeriesContent).chart);
  assert.equal(chart.source, "vision", "the hook's data is marked as read by a vision model");
  assert.deepEqual(chart.series, [{ name: "share", values: [0.4, 0.75, 0.55, 0.9] }]);
  assert.equal(fragments(document, "figure").length, 0);

  // What a model returns is brought to the chart shape: one number or null per category, names filled in.
  const loose = await parseDocument({ bytes, mimeType: "application/pdf" });
  await applyEnrichment(
    loose.document,
    { bytes, mimeType: "application/pdf" },
    options({ chart_extraction: true }),
    {
      async readChart() {
        return {
          chartType: "",
          title: null,
          categories: ["a", "b"],
          series: [{ name: "", values: [1, "two", 3] as unknown as number[] }],
          origin: "chart_part",
        };
      },
    },
  );
  const [checked] = fragments(loose.document, "chart").map(
    (f) => (f.content as unknown as ChartSeriesContent).chart,
  );
  assert.deepEqual(checked.series, [{ name: "Series 1", values: [1, null] }]);
  assert.equal(checked.chart_type, "unknown");

  // Offline, a raster chart stays a figure: its numbers are not guessed from pixels.
  const offline = await parseDocument({ bytes, mimeType: "application/pdf" });
  await applyEnrichment(
    offline.document,
    { bytes, mimeType: "application/pdf" },
    options({ chart_extraction: true }),
  );
  assert.equal(fragments(offline.document, "chart").length, 0);
  assert.equal(fragments(offline.document, "figure").length, 1);
});

test("a table with shaded cells and a row of years is not taken for a chart", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const rows = [
    ["Region", "2019", "2020", "2021", "2022"],
    ["North", "12", "15", "19", "22"],
    ["South", "9", "11", "14", "13"],
    ["East", "20", "18", "21", "25"],
    ["West", "7", "9", "8", "12"],
  ];
  const widths = [120, 80, 80, 80, 80];
  const rowHeight = 22;
  // Shading: the label column's cells (one length, stacked) and two body cells of different widths.
  for (let r = 0; r < rows.length; r++) {
    page.drawRectangle({
      x: 72,
      y: PAGE_HEIGHT - 100 - (r + 1) * rowHeight,
      width: 120,
      height: rowHeight,
      color: rgb(0.85, 0.85, 0.85),
    });
  }
  drawGrid(page, { x: 72, top: 100, widths, rows: rows.length, rowHeight });
  drawGridText(page, rows, { x: 72, top: 100, widths, rowHeight, fonts, header: true });
  const bytes = await pdfBytes(pdf);
  const { document } = await parseDocument({ bytes, mimeType: "application/pdf" });
  const before = fragments(document, "table").length;
  await applyEnrichment(
    document,
    { bytes, mimeType: "application/pdf" },
    options({ chart_extraction: true }),
  );
  assert.equal(fragments(document, "chart").length, 0);
  assert.equal(fragments(document, "table").length, before);
  assert.ok(before >= 1);
});

test("on a page without a text layer, a figure's words are read by OCR from its picture", async () => {
  const { pdf } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const picture = await textImage(["Quarterly sales by region", "North South East West"], {
    widthIn: 6,
    heightIn: 2,
    fontPt: 16,
  });
  const image = await pdf.embedPng(picture);
  page.drawImage(image, { x: 72, y: PAGE_HEIGHT - 120 - 144, width: 432, height: 144 });
  const bytes = await pdfBytes(pdf);
  const { document } = await parseDocument({ bytes, mimeType: "application/pdf" });
  await applyEnrichment(
    document,
    { bytes, mimeType: "application/pdf" },
    options({ figure_summarization: true }),
  );
  const [summary] = fragments(document, "figure").map((f) => (f.content as { summary: string }).summary);
  assert.match(summary, /Text in the figure: "Quarterly sales by region North South East West"/);
});

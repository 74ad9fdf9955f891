import type { EnrichmentOptions } from "@svc/contract";
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import type { Box, ChartData, DocumentModel, FigureItem, TableItem } from "../model.ts";
import type { TextRun } from "../paginated/geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { closePdf } from "../pdf/open.ts";
import { tableToMarkdown } from "../views/tables.ts";
import { figureOcrLines } from "./figure-ocr.ts";
import { figureCaption, placeOnPage, summarizeFigureOffline } from "./figure-summary.ts";
import { pdfCrop, pdfPageImage, rasterPageImage } from "./page-images.ts";
import { figureImage, lowResolutionCrop, NO_PICTURES, openPictures, type Pictures } from "./pictures.ts";
import { joinTables, summarizeTableOffline } from "./table-summary.ts";
import { addVectorCharts } from "./vector-chart.ts";

/**
 * Enrichment (enrichment_options): table and figure summaries, chart data, page images, written into the model
 * in place; the views render them (table and figure fragments' `summary`, `chart` fragments, each page's
 * `page_image`). Every part works offline; a hook, when given, replaces the offline method of its part (a model
 * provider). A hook's error propagates: the caller decides whether the job fails.
 */
export interface EnrichmentHooks {
  /** A table's summary; `markdown` is the table as GFM, `prompt` the request's table_summarization_prompt. */
  summarizeTable?(table: TableItem, markdown: string, prompt: string | null): Promise<string>;
  /** A figure's summary; `image` is the figure as PNG (cropped from the page) when one could be made. */
  summarizeFigure?(figure: FigureItem, image: Uint8Array | null, prompt: string | null): Promise<string>;
  /** The data of a chart shown as a picture (PNG), or null when the picture is not a chart. */
  readChart?(figure: FigureItem, image: Uint8Array): Promise<ChartData | null>;
}

/** What the caller parsed, when it was not the whole document. */
export interface EnrichmentScope {
  /** The pages parsed (page_range), null or left out for every page: page images are made of these only. */
  pages?: readonly number[] | null;
}

/** Resolution a figure is read by OCR at, and how many figures of one document are read so at most. */
const OCR_FIGURE_DPI = 300;
const MAX_FIGURE_OCR = 50;

/** Page images made for one document at most; the rest are left out with a warning. */
export const MAX_PAGE_IMAGES = 200;

/**
 * Annotates the model with the enrichments the options ask for.
 *
 * @example
 * const { document } = await parseDocument({ bytes, mimeType: "application/pdf" });
 * await applyEnrichment(document, { bytes, mimeType: "application/pdf" }, { ...ENRICHMENT_OPTION_DEFAULTS, table_summarization: true });
 * documentViews(document).pages[0].page_fragments; // table fragments carry content.summary
 */
export async function applyEnrichment(
  model: DocumentModel,
  source: { bytes: Uint8Array | null; mimeType: string },
  options: Required<EnrichmentOptions>,
  hooks: EnrichmentHooks = {},
  scope: EnrichmentScope = {},
): Promise<void> {
  const wanted =
    options.table_summarization ||
    options.figure_summarization ||
    options.chart_extraction ||
    options.include_full_page_image;
  if (!wanted) return;
  if (options.table_summarization) await summarizeTables(model, options.table_summarization_prompt, hooks);
  const needPictures =
    options.figure_summarization || options.chart_extraction || options.include_full_page_image;
  // Slides are printed only for what needs their pictures: page images, and figures shown to a model.
  const slides =
    options.include_full_page_image ||
    (options.figure_summarization && hooks.summarizeFigure !== undefined) ||
    (options.chart_extraction && hooks.readChart !== undefined);
  const pictures = needPictures ? await openPictures(model, source, slides) : NO_PICTURES;
  try {
    // Charts first: a figure found to be a chart is summarized as one.
    if (options.chart_extraction) await extractCharts(model, pictures, hooks);
    if (options.figure_summarization)
      await summarizeFigures(model, pictures, options.figure_summarization_prompt, hooks);
    if (options.include_full_page_image) await addPageImages(model, pictures, scope.pages ?? null);
  } finally {
    if (pictures.pdf) await closePdf(pictures.pdf);
  }
}

async function summarizeTables(
  model: DocumentModel,
  prompt: string | null,
  hooks: EnrichmentHooks,
): Promise<void> {
  const summarize = (table: TableItem) =>
    hooks.summarizeTable
      ? hooks.summarizeTable(table, tableToMarkdown(table), prompt)
      : summarizeTableOffline(table);
  for (const item of model.items) {
    if (item.label === "table") item.summary = await summarize(item);
  }
  // A table continued over pages is also summarized whole (merged_tables[].summary).
  const byId = new Map(model.items.map((item) => [item.id, item]));
  for (const group of model.mergedTables ?? []) {
    const parts = group.itemIds
      .map((id) => byId.get(id))
      .filter((item): item is TableItem => item?.label === "table");
    if (parts.length > 0) group.summary = await summarize(joinTables(parts));
  }
}

function figures(model: DocumentModel): FigureItem[] {
  return model.items.filter((item): item is FigureItem => item.label === "figure");
}

/**
 * A chart as a model read it, in the model's shape: strings for categories and names, one number or null per
 * category in every series; null when it has no series or no categories.
 */
function checkedChart(data: ChartData | null): ChartData | null {
  if (!data || !Array.isArray(data.categories) || !Array.isArray(data.series)) return null;
  const categories = data.categories.map((category) => String(category ?? ""));
  const series = data.series
    .filter((entry) => entry && Array.isArray(entry.values))
    .map((entry, i) => ({
      name: typeof entry.name === "string" && entry.name !== "" ? entry.name : `Series ${i + 1}`,
      values: categories.map((_, k) => {
        const value = entry.values[k];
        return typeof value === "number" && Number.isFinite(value) ? value : null;
      }),
    }));
  if (categories.length === 0 || series.length === 0) return null;
  return {
    chartType: typeof data.chartType === "string" && data.chartType !== "" ? data.chartType : "unknown",
    title: typeof data.title === "string" ? data.title : null,
    categories,
    series,
    origin: "vision",
  };
}

async function extractCharts(
  model: DocumentModel,
  pictures: Pictures,
  hooks: EnrichmentHooks,
): Promise<void> {
  for (const figure of figures(model)) {
    if (figure.chart?.data) {
      figure.chartData = figure.chart.data;
      continue;
    }
    if (!hooks.readChart) continue;
    const image = await figureImage(model, figure, pictures);
    if (!image) continue;
    const data = checkedChart(await hooks.readChart(figure, image));
    if (data) figure.chartData = data;
  }
  if (pictures.pdf && !pictures.printed) await addVectorCharts(model, pictures.pdf);
}

/** The text runs of a PDF's pages, read once per page. */
class PageRuns {
  private readonly cache = new Map<number, { runs: TextRun[]; textLayer: boolean }>();
  private readonly pdf: PDFDocumentProxy | null;
  constructor(pdf: PDFDocumentProxy | null) {
    this.pdf = pdf;
  }
  /** The page's text runs, and whether they are its text layer (false on a scan or picture-only page). */
  async of(page: number): Promise<{ runs: TextRun[]; textLayer: boolean }> {
    if (!this.pdf) return { runs: [], textLayer: true };
    let read = this.cache.get(page);
    if (!read) {
      try {
        const geometry = await extractPdfPage(this.pdf, page);
        read = { runs: geometry.runs, textLayer: geometry.textSource === "text-layer" };
      } catch {
        // A page whose text cannot be read again gives its figures no text; the parse itself read it.
        read = { runs: [], textLayer: true };
      }
      this.cache.set(page, read);
    }
    return read;
  }
}

async function summarizeFigures(
  model: DocumentModel,
  pictures: Pictures,
  prompt: string | null,
  hooks: EnrichmentHooks,
): Promise<void> {
  const runs = new PageRuns(pictures.printed ? null : pictures.pdf);
  const lowResolution = new Map<number, Promise<Uint8Array | null>>();
  let ocrFigures = 0;
  for (const figure of figures(model)) {
    if (hooks.summarizeFigure) {
      figure.summary = await hooks.summarizeFigure(
        figure,
        await figureImage(model, figure, pictures),
        prompt,
      );
      continue;
    }
    const prov = figure.prov[0];
    const box = prov?.bbox ?? null;
    const read = box ? await runs.of(prov.page) : { runs: [], textLayer: true };
    const pageRuns = read.runs;
    const within = (run: TextRun, b: Box) => {
      const x = (run.box.x1 + run.box.x2) / 2;
      const y = (run.box.y1 + run.box.y2) / 2;
      return x >= b.x1 && x <= b.x2 && y >= b.y1 && y <= b.y2 && run.text.trim() !== "";
    };
    const inside = box ? pageRuns.filter((run) => within(run, box)) : [];
    // Axis labels set just outside a chart's picture: within a margin of a tenth of its size (at least 12 pt).
    const margin = box ? Math.max(12, 0.1 * Math.max(box.x2 - box.x1, box.y2 - box.y1)) : 0;
    const grown = box && {
      x1: box.x1 - margin,
      y1: box.y1 - margin,
      x2: box.x2 + margin,
      y2: box.y2 + margin,
    };
    const beside = grown ? pageRuns.filter((run) => within(run, grown) && !inside.includes(run)) : [];
    const order = (a: TextRun, b: TextRun) => a.box.y1 - b.box.y1 || a.box.x1 - b.box.x1;
    inside.sort(order);
    beside.sort(order);
    // On a page without a text layer the figure's own words are read by OCR from its picture.
    const text = inside.map((run) => run.text.trim());
    if (box && pictures.pdf && !pictures.printed && !read.textLayer && text.length === 0) {
      ocrFigures++;
      if (ocrFigures > MAX_FIGURE_OCR) {
        if (ocrFigures === MAX_FIGURE_OCR + 1)
          model.warnings.push(
            `Only the first ${MAX_FIGURE_OCR} figures on pages without a text layer were read by OCR`,
          );
      } else {
        try {
          text.push(
            ...(await figureOcrLines(
              await pdfCrop(pictures.pdf, prov.page, box, OCR_FIGURE_DPI),
              box.x2 - box.x1,
            )),
          );
        } catch (error) {
          model.warnings.push(
            `The figure on page ${prov.page} could not be read by OCR: ${(error as Error).message}`,
          );
        }
      }
    }
    figure.summary = await summarizeFigureOffline(figure, {
      caption: figureCaption(model, figure),
      text,
      besideText: beside.map((run) => run.text.trim()),
      // Rendered only when the cheaper evidence leaves the kind open, from one low-resolution render per page.
      picture: () => lowResolutionCrop(model, figure, pictures, lowResolution),
      ...placeOnPage(model, prov?.page ?? 1, box),
    });
  }
}

async function addPageImages(
  model: DocumentModel,
  pictures: Pictures,
  pages: readonly number[] | null,
): Promise<void> {
  if (!pictures.pdf && !pictures.raster) {
    model.warnings.push(
      `Page images are made of PDF, image and slide documents only, not of ${model.mimeType}`,
    );
    return;
  }
  const wanted = pages === null ? null : new Set(pages);
  const candidates = model.pages.filter(
    (page) => page.size && (wanted === null || wanted.has(page.pageNumber)),
  );
  if (candidates.length > MAX_PAGE_IMAGES) {
    model.warnings.push(`Page images were made of the first ${MAX_PAGE_IMAGES} pages only`);
  }
  for (const page of candidates.slice(0, MAX_PAGE_IMAGES)) {
    const size = page.size;
    if (!size) continue;
    try {
      page.image = pictures.pdf
        ? await pdfPageImage(pictures.pdf, page.pageNumber)
        : await rasterPageImage(pictures.raster as Uint8Array, page.pageNumber, size.width);
    } catch (error) {
      model.warnings.push(`No image of page ${page.pageNumber}: ${(error as Error).message}`);
    }
  }
}

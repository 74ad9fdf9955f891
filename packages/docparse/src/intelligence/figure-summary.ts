import sharp from "sharp";
import type { Box, DocumentModel, FigureItem } from "../model.ts";
import { parseNumber } from "./table-summary.ts";

/**
 * The offline figure summary: what kind of figure it is (from cheap evidence), its caption, and the text drawn
 * inside it. Nothing is described that was not read.
 */

export type FigureKind = "chart" | "diagram" | "photo" | "logo" | "image";

export interface FigureEvidence {
  caption: string | null;
  /** Text drawn inside the figure's box (a PDF's text layer), in reading order; empty when none was read. */
  text: string[];
  /** Text drawn just outside the box (axis labels of a chart whose picture holds only the plot). */
  besideText?: string[];
  /** The figure's picture (null when none can be made), asked for only when the other evidence is not enough. */
  picture: () => Promise<Uint8Array | null>;
  /** The figure's share of its page's area, when both are known. */
  pageShare: number | null;
  /** Where the top of the figure is, as a share of the page's height (0 = top), when known. */
  pageTop: number | null;
}

/** Caption words that name a kind outright. */
const KIND_WORDS: [FigureKind, RegExp][] = [
  ["chart", /\b(chart|graph|plot|histogram|bar|pie|trend|axis)\b/i],
  ["diagram", /\b(diagram|flow ?chart|schematic|architecture|pipeline|workflow|overview|map)\b/i],
  ["photo", /\b(photo(graph)?|picture|portrait|view of)\b/i],
  ["logo", /\b(logo|emblem|icon|seal)\b/i],
];

/** Shannon entropy of a picture's gray levels (bits, 0–8): photographs are high, drawings on white low. */
async function entropyOf(image: Uint8Array): Promise<number | null> {
  try {
    const stats = await sharp(image).greyscale().stats();
    return stats.entropy;
  } catch {
    return null;
  }
}

/** The kind of a figure, and the evidence it was told by (for the summary to state). */
export async function figureKind(
  figure: FigureItem,
  evidence: FigureEvidence,
): Promise<{ kind: FigureKind; reason: string }> {
  if (figure.chartData?.origin === "vector") return { kind: "chart", reason: "its bars and axes were read" };
  if (figure.chartData?.origin === "vision") return { kind: "chart", reason: "a vision model read its data" };
  if (figure.chartData || figure.chart) return { kind: "chart", reason: "the document holds its chart data" };
  const caption = evidence.caption ?? "";
  for (const [kind, words] of KIND_WORDS) {
    const match = words.exec(caption);
    if (match) return { kind, reason: `its caption says "${match[0]}"` };
  }
  const count = (lines: readonly string[]) => {
    const tokens = lines.flatMap((line) => line.split(/\s+/)).filter((token) => token !== "");
    const numbers = tokens.filter((token) => parseNumber(token) !== null).length;
    return numbers >= 4 && numbers >= tokens.length * 0.4 ? numbers : 0;
  };
  const inside = count(evidence.text);
  if (inside > 0) return { kind: "chart", reason: `it holds ${inside} numeric labels` };
  const beside = count(evidence.besideText ?? []);
  if (beside > 0) return { kind: "chart", reason: `${beside} numeric labels line its edge` };
  if (evidence.text.length >= 3)
    return { kind: "diagram", reason: `it holds ${evidence.text.length} text labels` };
  const image = await evidence.picture();
  const entropy = image ? await entropyOf(image) : null;
  if (
    evidence.pageShare !== null &&
    evidence.pageShare < 0.05 &&
    evidence.pageTop !== null &&
    evidence.pageTop < 0.2 &&
    evidence.text.length === 0 &&
    (entropy === null || entropy < 6)
  ) {
    return { kind: "logo", reason: "it is small and at the top of its page" };
  }
  if (entropy !== null && entropy >= 6.5) {
    return { kind: "photo", reason: `its tones vary continuously (entropy ${entropy.toFixed(1)} bits)` };
  }
  return { kind: "image", reason: "no stronger evidence of its kind" };
}

function quote(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return `"${flat.length > max ? `${flat.slice(0, max - 3)}...` : flat}"`;
}

/**
 * A factual summary of a figure.
 *
 * @example
 * await summarizeFigureOffline(figure, { caption: "Figure 2: Revenue (bar chart)", text: ["2020", "2021"], ... });
 * // 'Chart (its caption says "bar"). Caption: "Figure 2: Revenue (bar chart)". Text in the figure: "2020 2021".'
 */
export async function summarizeFigureOffline(figure: FigureItem, evidence: FigureEvidence): Promise<string> {
  const { kind, reason } = await figureKind(figure, evidence);
  const chartType = figure.chartData?.chartType ?? figure.chart?.type;
  const name = kind === "chart" && chartType ? `${chartType.replace(/\+/g, " and ")} chart` : kind;
  const sentences = [`${name[0].toUpperCase()}${name.slice(1)} (${reason}).`];
  const title = figure.chartData?.title ?? figure.chart?.title ?? null;
  if (evidence.caption) sentences.push(`Caption: ${quote(evidence.caption, 300)}.`);
  else if (title) sentences.push(`Title: ${quote(title, 300)}.`);
  const data = figure.chartData;
  if (data && data.series.length > 0) {
    const series = data.series.map((entry) => quote(entry.name, 60)).join(", ");
    sentences.push(
      `${data.series.length} series (${series}) over ${data.categories.length} categories` +
        (data.categories.length > 0
          ? ` from ${quote(data.categories[0], 40)} to ${quote(data.categories[data.categories.length - 1], 40)}`
          : "") +
        ".",
    );
  }
  if (evidence.text.length > 0) sentences.push(`Text in the figure: ${quote(evidence.text.join(" "), 500)}.`);
  return sentences.join(" ");
}

/**
 * The caption of a figure: its own, or a figure caption right before or after it on its page. Text drawn on the
 * figure itself (labels, a map's title read by OCR) is read next to it and is stepped over.
 */
export function figureCaption(model: DocumentModel, figure: FigureItem): string | null {
  if (figure.caption) return figure.caption;
  const index = model.items.indexOf(figure);
  const page = figure.prov[0]?.page;
  const area = figure.prov[0]?.bbox;
  const onFigure = (item: DocumentModel["items"][number] | undefined) => {
    const b = item?.prov[0]?.bbox;
    if (!area || !b || item?.prov[0]?.page !== page || item.label === "figure_caption") return false;
    const x = (b.x1 + b.x2) / 2;
    const y = (b.y1 + b.y2) / 2;
    return x >= area.x1 && x <= area.x2 && y >= area.y1 && y <= area.y2;
  };
  for (const step of [1, -1]) {
    let at = index + step;
    while (onFigure(model.items[at])) at += step;
    const neighbour = model.items[at];
    if (neighbour?.label === "figure_caption" && neighbour.prov[0]?.page === page) return neighbour.text;
  }
  return null;
}

/** Where a box sits on its page: its share of the page's area and its top as a share of the height. */
export function placeOnPage(
  model: DocumentModel,
  page: number,
  bbox: Box | null,
): Pick<FigureEvidence, "pageShare" | "pageTop"> {
  const size = model.pages.find((entry) => entry.pageNumber === page)?.size;
  if (!bbox || !size || size.width <= 0 || size.height <= 0) return { pageShare: null, pageTop: null };
  const area = (bbox.x2 - bbox.x1) * (bbox.y2 - bbox.y1);
  return { pageShare: area / (size.width * size.height), pageTop: bbox.y1 / size.height };
}

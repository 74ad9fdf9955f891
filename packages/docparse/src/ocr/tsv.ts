import { isRightToLeft, unspacedScript } from "./languages.ts";
import type { OcrLine, OcrRun } from "./ocr-page.ts";
import { lineTypeSizes } from "./type-size.ts";

/**
 * Tesseract's TSV output (the `tsv` config of the program, `tsv: true` in tesseract.js): one row per page, block,
 * paragraph, line and word, with pixel boxes; words (level 5) carry a confidence of 0..100 and their text.
 */

/** A word of a TSV page, in pixels of the image OCR read. */
export interface TsvWord {
  block: number;
  paragraph: number;
  line: number;
  left: number;
  top: number;
  width: number;
  height: number;
  /** 0..100. */
  conf: number;
  text: string;
}

/** A line row of a TSV page (level 4). */
export interface TsvLine {
  block: number;
  paragraph: number;
  line: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface TsvPage {
  words: TsvWord[];
  lines: TsvLine[];
}

const LEVEL_LINE = 4;
const LEVEL_WORD = 5;

/**
 * Parses TSV text; rows that are not lines or words with text and a confidence of at least 0 are left out. The
 * program's plain text may follow the TSV rows (the `tsv txt` configs together): its spaces then tell which words
 * of a line are one word of the text (Korean words OCR split into syllables, Chinese runs split into pieces).
 */
export function parseTesseractTsv(tsv: string): TsvPage {
  const words: TsvWord[] = [];
  const lines: TsvLine[] = [];
  const textLines: string[] = [];
  for (const row of tsv.split("\n")) {
    const cells = row.replace(/\r$/, "").split("\t");
    if (cells.length === 1) {
      if (cells[0].trim() !== "") textLines.push(cells[0].trim());
      continue;
    }
    if (cells.length < 12) continue;
    const level = Number(cells[0]);
    const [block, paragraph, line, left, top, width, height, conf] = [2, 3, 4, 6, 7, 8, 9, 10].map((i) =>
      Number(cells[i]),
    );
    if (![block, paragraph, line, left, top, width, height, conf].every(Number.isFinite)) continue;
    if (level === LEVEL_LINE) lines.push({ block, paragraph, line, left, top, width, height });
    if (level !== LEVEL_WORD) continue;
    const text = cells[11].trim();
    if (text === "" || conf < 0) continue;
    words.push({ block, paragraph, line, left, top, width, height, conf, text });
  }
  const spaced = textLines.length > 0 ? joinBySpaces(words, textLines) : words;
  return joinUnspacedWords({ words: spaced, lines });
}

/**
 * The output of one tesseract run over several images (a list of image files, `tsv txt`) cut into each image's
 * own output, in the images' order: a TSV row names its image in the `page_num` column (1 for the first), and the
 * plain text of an image follows its rows, after a form feed from the second image on. Null when the output does
 * not hold exactly `count` images (the run stopped early).
 */
export function splitTesseractPages(output: string, count: number): string[] | null {
  const pages: string[][] = Array.from({ length: count }, () => []);
  let current = -1;
  for (const raw of output.split("\n")) {
    const row = raw.replace(/^\f+/, "");
    const cells = row.split("\t");
    if (cells.length >= 12 && /^\d+$/.test(cells[1])) {
      const index = Number(cells[1]) - 1;
      if (index < current || index >= count) return null;
      current = index;
    }
    if (current >= 0) pages[current].push(row);
  }
  // Every image has its page row (level 1), blank images too: a missing one is an image the run never read.
  const read = pages.filter((rows) => rows.some((row) => row.startsWith("1\t"))).length;
  return read === count ? pages.map((rows) => rows.join("\n")) : null;
}

/**
 * Joins a line's neighbouring words that the plain text writes without a space between them. The text's lines
 * and the TSV's come from one iterator, in one order; when a text line does not spell its TSV line's words (a
 * word left out for its confidence), that line is left as it is.
 */
function joinBySpaces(words: TsvWord[], textLines: string[]): TsvWord[] {
  const out: TsvWord[] = [];
  const squeeze = (text: string) => text.replace(/\s+/g, "");
  let textIndex = 0;
  let index = 0;
  while (index < words.length) {
    const id = lineId(words[index]);
    let end = index;
    while (end < words.length && lineId(words[end]) === id) end++;
    const line = words.slice(index, end);
    index = end;
    const squeezedLine = squeeze(line.map((w) => w.text).join(""));
    let found = -1;
    for (let t = textIndex; t < Math.min(textLines.length, textIndex + 3); t++) {
      if (squeeze(textLines[t]) === squeezedLine) {
        found = t;
        break;
      }
    }
    if (found < 0) {
      out.push(...line);
      continue;
    }
    textIndex = found + 1;
    const text = textLines[found];
    let at = 0;
    let previous: TsvWord | null = null;
    for (const word of line) {
      // Where the word starts in the text, and whether a space comes before it.
      let spaceBefore = false;
      while (at < text.length && /\s/.test(text[at])) {
        spaceBefore = true;
        at++;
      }
      at += word.text.length;
      if (previous && !spaceBefore) {
        previous = mergeWords(previous, word);
        out[out.length - 1] = previous;
      } else {
        out.push(word);
        previous = word;
      }
    }
  }
  return out;
}

/** Two neighbouring words of a line as one: boxes united, confidence weighted by characters. */
function mergeWords(a: TsvWord, b: TsvWord): TsvWord {
  const left = Math.min(a.left, b.left);
  const top = Math.min(a.top, b.top);
  const right = Math.max(a.left + a.width, b.left + b.width);
  const bottom = Math.max(a.top + a.height, b.top + b.height);
  const chars = [...a.text].length;
  const more = [...b.text].length;
  return {
    ...a,
    left,
    top,
    width: right - left,
    height: bottom - top,
    conf: (a.conf * chars + b.conf * more) / (chars + more),
    text: a.text + b.text,
  };
}

/**
 * Words as text runs and lines in points: a pixel is `pointsPerPixel` points. With `verticalColumns` (a page
 * read with vertical CJK data) every word is a column's text, running down. A run's font size is its line's
 * type size as its row and words measure it (`lineTypeSizes`), the closest an OCR engine comes to the size of the
 * type.
 */
export function toRunsAndLines(
  page: TsvPage,
  pointsPerPixel: number,
  options: { verticalColumns?: boolean } = {},
): { runs: OcrRun[]; lines: OcrLine[] } {
  const k = pointsPerPixel;
  const round = (v: number) => Math.round(v * 100) / 100;
  if (options.verticalColumns) page = joinColumnWords(page);
  const lineRows = new Map(page.lines.map((l) => [lineId(l), l]));
  const lines = new Map<
    string,
    OcrLine & { words: { text: string; heightPx: number }[]; heightPx: number }
  >();
  const runs: OcrRun[] = [];
  for (const word of page.words) {
    const id = lineId(word);
    let line = lines.get(id);
    if (!line) {
      const row = lineRows.get(id);
      line = {
        id,
        paragraphId: `${word.block}.${word.paragraph}`,
        box: row
          ? { x1: row.left, y1: row.top, x2: row.left + row.width, y2: row.top + row.height }
          : { x1: word.left, y1: word.top, x2: word.left + word.width, y2: word.top + word.height },
        text: "",
        runs: [],
        words: [],
        heightPx: row ? row.height : word.height,
      };
      lines.set(id, line);
    }
    if (!lineRows.has(id)) {
      // No line row: the line is the union of its words.
      line.box = {
        x1: Math.min(line.box.x1, word.left),
        y1: Math.min(line.box.y1, word.top),
        x2: Math.max(line.box.x2, word.left + word.width),
        y2: Math.max(line.box.y2, word.top + word.height),
      };
      line.heightPx = line.box.y2 - line.box.y1;
    }
    line.runs.push(runs.length);
    line.words.push({ text: word.text, heightPx: word.height });
    runs.push({
      text: word.text,
      box: {
        x1: round(word.left * k),
        y1: round(word.top * k),
        x2: round((word.left + word.width) * k),
        y2: round((word.top + word.height) * k),
      },
      fontName: "ocr",
      fontSize: 0,
      bold: false,
      italic: false,
      // Vertical CJK columns follow each other from right to left, as a right-to-left page's columns do.
      dir: options.verticalColumns || isRightToLeft(word.text) ? "rtl" : "ltr",
      ...(options.verticalColumns ? { vertical: true } : {}),
      confidence: Math.min(1, Math.max(0, word.conf / 100)),
      lineId: id,
    });
  }
  const out: OcrLine[] = [];
  const sizes = lineTypeSizes([...lines.values()].map((l) => ({ rowHeightPx: l.heightPx, words: l.words })));
  for (const [i, { words, heightPx, ...line }] of [...lines.values()].entries()) {
    // A column's type size is its width.
    const sizePx = options.verticalColumns ? line.box.x2 - line.box.x1 : sizes[i];
    const fontSize = Math.max(1, Math.round(sizePx * k * 10) / 10);
    for (const index of line.runs) runs[index].fontSize = fontSize;
    out.push({
      ...line,
      text: words.map((w) => w.text).join(" "),
      box: {
        x1: round(line.box.x1 * k),
        y1: round(line.box.y1 * k),
        x2: round(line.box.x2 * k),
        y2: round(line.box.y2 * k),
      },
    });
  }
  return { runs, lines: out };
}

/**
 * Joins the words of one line that OCR split inside a script written without spaces (Chinese, Japanese, Thai):
 * neighbours whose touching characters are both of such a script, less than a line height apart, become one word.
 * (What the program's plain text gives, for engines without it.)
 */
export function joinUnspacedWords(page: TsvPage): TsvPage {
  const words: TsvWord[] = [];
  for (const word of page.words) {
    const previous = words.at(-1);
    const joined =
      previous !== undefined &&
      lineId(previous) === lineId(word) &&
      unspacedScript([...previous.text].at(-1)) &&
      unspacedScript([...word.text][0]) &&
      word.left - (previous.left + previous.width) < Math.max(previous.height, word.height);
    if (previous && joined) words[words.length - 1] = mergeWords(previous, word);
    else words.push(word);
  }
  return { words, lines: page.lines };
}

/**
 * Words of one column of vertical writing as one word: each next word that stands below the previous one, across
 * most of its width and within a character's height, joins it (OCR splits a column into several lines).
 */
function joinColumnWords(page: TsvPage): TsvPage {
  const words: TsvWord[] = [];
  for (const word of page.words) {
    const previous = words.at(-1);
    const overlap = previous
      ? Math.min(previous.left + previous.width, word.left + word.width) - Math.max(previous.left, word.left)
      : 0;
    const below = previous ? word.top - (previous.top + previous.height) : 0;
    if (
      previous &&
      overlap >= 0.5 * Math.min(previous.width, word.width) &&
      below > -0.5 * word.width &&
      below < 1.5 * Math.max(previous.width, word.width)
    ) {
      words[words.length - 1] = { ...mergeWords(previous, word), block: previous.block };
    } else {
      words.push(word);
    }
  }
  return { words, lines: page.lines };
}

function lineId(row: { block: number; paragraph: number; line: number }): string {
  return `${row.block}.${row.paragraph}.${row.line}`;
}

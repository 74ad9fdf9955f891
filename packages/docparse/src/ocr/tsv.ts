import type { OcrLine, OcrRun } from "./engine.ts";

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

/** Parses TSV text; rows that are not lines or words with text and a confidence of at least 0 are left out. */
export function parseTesseractTsv(tsv: string): TsvPage {
  const words: TsvWord[] = [];
  const lines: TsvLine[] = [];
  for (const row of tsv.split("\n")) {
    const cells = row.replace(/\r$/, "").split("\t");
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
  return { words, lines };
}

/**
 * Words as text runs and lines in points: a pixel is `pointsPerPixel` points. A run's font size is its line's
 * height, the closest an OCR engine comes to the size of the type.
 */
export function toRunsAndLines(page: TsvPage, pointsPerPixel: number): { runs: OcrRun[]; lines: OcrLine[] } {
  const k = pointsPerPixel;
  const round = (v: number) => Math.round(v * 100) / 100;
  const lineRows = new Map(page.lines.map((l) => [lineId(l), l]));
  const lines = new Map<string, OcrLine & { words: string[]; heightPx: number }>();
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
    line.words.push(word.text);
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
      dir: "ltr",
      confidence: Math.min(1, Math.max(0, word.conf / 100)),
      lineId: id,
    });
  }
  const out: OcrLine[] = [];
  for (const { words, heightPx, ...line } of lines.values()) {
    const fontSize = Math.max(1, Math.round(heightPx * k * 10) / 10);
    for (const index of line.runs) runs[index].fontSize = fontSize;
    out.push({
      ...line,
      text: words.join(" "),
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

function lineId(row: { block: number; paragraph: number; line: number }): string {
  return `${row.block}.${row.paragraph}.${row.line}`;
}

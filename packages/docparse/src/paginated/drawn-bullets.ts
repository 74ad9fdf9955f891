import type { Box } from "../model.ts";
import { box, type PageGeometry, type TextRun } from "./geometry.ts";

/** Points: no bullet is wider (three fifths of an em of 40 pt type). */
const MAX_DOT = 24;

/**
 * Bullets drawn as shapes (a web page printed to PDF draws its list's discs as small filled paths, with no
 * character in the text layer): a painted path between a fifth and three fifths of an em each way, about as
 * wide as high, its middle in the middle third of a line's first run, which begins within two ems after it with
 * no text in between. Each is read as a `•` run opening that line, so the lines stay list items instead of
 * running together into one paragraph. Dots of a dotted rule (smaller, under the text) and shapes beside text
 * further away are left alone.
 */
export function drawnBullets(page: PageGeometry): TextRun[] {
  const bullets: TextRun[] = [];
  const runs = page.runs.filter((run) => !run.vertical);
  for (const dot of page.drawings ?? []) {
    const w = dot.x2 - dot.x1;
    const h = dot.y2 - dot.y1;
    // Cheap tests first: a page of vector art has thousands of paths, few of them dot-sized.
    if (w <= 0 || h <= 0 || w > MAX_DOT || w > h * 1.5 || h > w * 1.5) continue;
    const middle = (dot.y1 + dot.y2) / 2;
    const item = runs.find((run) => {
      const em = run.fontSize;
      const third = (run.box.y2 - run.box.y1) / 3;
      return (
        h >= em * 0.2 &&
        h <= em * 0.6 &&
        middle > run.box.y1 + third &&
        middle < run.box.y2 - third &&
        run.box.x1 >= dot.x2 &&
        run.box.x1 - dot.x2 <= em * 2
      );
    });
    if (!item) continue;
    // Nothing stands between the dot and its item, nor does text run over the dot (a shape inside a line).
    const between: Box = { x1: dot.x1, y1: item.box.y1, x2: item.box.x1, y2: item.box.y2 };
    if (runs.some((run) => run !== item && box.intersection(run.box, between) > 0)) continue;
    bullets.push({
      text: "•",
      box: { x1: dot.x1, y1: item.box.y1, x2: dot.x2, y2: item.box.y2 },
      fontName: item.fontName,
      fontSize: item.fontSize,
      bold: false,
      italic: false,
      dir: "ltr",
      confidence: 1,
    });
  }
  return bullets;
}

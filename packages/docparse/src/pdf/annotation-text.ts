import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList } from "pdfjs-dist/types/src/display/api.js";
import { box, type TextRun } from "../paginated/geometry.ts";
import { apply, type Matrix, multiply } from "./matrix.ts";

/**
 * Text drawn by annotations' appearances (a boxed notice made a push button, a free-text note, a stamp): pdf.js's
 * text content holds the page's own content only, so this text would be lost though the reader sees it. It is
 * read from the operator list, where each shown annotation's appearance stands between `beginAnnotation` and
 * `endAnnotation`: one run per text-showing operator, placed by the text and transformation matrices.
 */

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

function asMatrix(value: unknown): Matrix | null {
  if (value === null || typeof value !== "object") return null;
  const m = Array.from(value as ArrayLike<number>);
  return m.length === 6 && m.every((v) => typeof v === "number" && Number.isFinite(v)) ? (m as Matrix) : null;
}

interface Glyph {
  unicode?: string;
  width?: number;
}

/**
 * A run's text from pdf.js's glyph list, with its advances in text space (thousandths of the font size): where
 * its first visible glyph starts, where its last one ends, and the whole.
 */
function shown(glyphs: readonly unknown[]): { text: string; start: number; end: number; advance: number } {
  let text = "";
  let advance = 0;
  let start = -1;
  let end = 0;
  for (const g of glyphs) {
    if (typeof g === "number") {
      advance -= g;
      // A wide negative kern stands for a space.
      if (g <= -250 && text && !text.endsWith(" ")) text += " ";
      continue;
    }
    if (g === null || typeof g !== "object") continue;
    const glyph = g as Glyph;
    const unicode = glyph.unicode ?? "";
    if (unicode.trim() && start < 0) start = advance;
    text += unicode;
    advance += glyph.width ?? 0;
    if (unicode.trim()) end = advance;
  }
  return { text: text.trim(), start: Math.max(0, start), end, advance };
}

/**
 * Text runs of the annotations' appearances, in the coordinates `viewport` maps PDF user space to; a run the
 * page's own text already holds at that place (an annotation over printed text) is left out.
 */
export function annotationTextRuns(
  ops: PDFOperatorList,
  viewport: readonly number[],
  existing: readonly TextRun[],
): TextRun[] {
  const runs: TextRun[] = [];
  let depth = 0;
  let ctm: Matrix = IDENTITY;
  const stack: Matrix[] = [];
  let lineMatrix: Matrix = IDENTITY;
  let textMatrix: Matrix = IDENTITY;
  let fontSize = 1;
  let leading = 0;
  let annotation: TextRun[] = [];
  const moveLine = (tx: number, ty: number) => {
    lineMatrix = multiply(lineMatrix, [1, 0, 0, 1, tx, ty]);
    textMatrix = lineMatrix;
  };
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i];
    const args = ops.argsArray[i] as unknown[] | null;
    if (fn === OPS.beginAnnotation) {
      depth++;
      if (depth === 1) {
        stack.length = 0;
        ctm = multiply(multiply(viewport, asMatrix(args?.[2]) ?? IDENTITY), asMatrix(args?.[3]) ?? IDENTITY);
        annotation = [];
      }
      continue;
    }
    if (fn === OPS.endAnnotation) {
      depth = Math.max(0, depth - 1);
      // A lone glyph (a checkbox's tick, a radio button's dot) says nothing a reader would read.
      if (
        depth === 0 &&
        annotation
          .map((r) => r.text)
          .join("")
          .replace(/\s/g, "").length > 1
      )
        runs.push(...annotation);
      continue;
    }
    if (depth === 0) continue;
    switch (fn) {
      case OPS.save:
        stack.push(ctm);
        break;
      case OPS.restore:
        ctm = stack.pop() ?? ctm;
        break;
      case OPS.transform: {
        const m = asMatrix(args);
        if (m) ctm = multiply(ctm, m);
        break;
      }
      case OPS.paintFormXObjectBegin: {
        stack.push(ctm);
        const m = asMatrix(args?.[0]);
        if (m) ctm = multiply(ctm, m);
        break;
      }
      case OPS.paintFormXObjectEnd:
        ctm = stack.pop() ?? ctm;
        break;
      case OPS.beginText:
        lineMatrix = IDENTITY;
        textMatrix = IDENTITY;
        break;
      case OPS.setFont:
        fontSize = typeof args?.[1] === "number" ? Math.abs(args[1]) || 1 : 1;
        break;
      case OPS.setLeading:
        leading = typeof args?.[0] === "number" ? args[0] : leading;
        break;
      case OPS.setTextMatrix: {
        const m = asMatrix(args?.[0] ?? args);
        if (m) {
          lineMatrix = m;
          textMatrix = m;
        }
        break;
      }
      case OPS.moveText:
      case OPS.setLeadingMoveText: {
        const tx = Number(args?.[0] ?? 0);
        const ty = Number(args?.[1] ?? 0);
        if (fn === OPS.setLeadingMoveText) leading = -ty;
        moveLine(tx, ty);
        break;
      }
      case OPS.nextLine:
        moveLine(0, -leading);
        break;
      case OPS.showText: {
        const glyphs = args?.[0];
        if (!Array.isArray(glyphs)) break;
        const { text, start, end, advance } = shown(glyphs);
        const full = multiply(ctm, textMatrix);
        textMatrix = multiply(textMatrix, [1, 0, 0, 1, (advance / 1000) * fontSize, 0]);
        if (!text) break;
        // From the first visible glyph to the last, from the descent below the baseline to the ascent above it.
        const [x1, y1] = apply(full, (start / 1000) * fontSize, -0.2 * fontSize);
        const [x2, y2] = apply(full, (end / 1000) * fontSize, 0.8 * fontSize);
        const runBox = box.round({
          x1: Math.min(x1, x2),
          y1: Math.min(y1, y2),
          x2: Math.max(x1, x2),
          y2: Math.max(y1, y2),
        });
        if (runBox.x2 - runBox.x1 < 0.5 || runBox.y2 - runBox.y1 < 0.5) break;
        const said = text.replace(/\s+/g, " ");
        if (existing.some((r) => r.text.trim() === said && box.intersection(r.box, runBox) > 0)) break;
        annotation.push({
          text: said,
          box: runBox,
          fontName: "annotation",
          fontSize: runBox.y2 - runBox.y1,
          bold: false,
          italic: false,
          dir: "ltr",
          confidence: 1,
        });
        break;
      }
    }
  }
  return runs;
}

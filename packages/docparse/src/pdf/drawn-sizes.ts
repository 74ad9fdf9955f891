import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList } from "pdfjs-dist/types/src/display/api.js";

/**
 * The size each character of a page is drawn at, read from its operator list. pdf.js builds a text item's height
 * from its first glyph, and keeps adding glyphs to the item when the text matrix alone changes the size (a
 * producer setting `1 Tf` and scaling with `Tm`): a fraction's small `4` followed by ` inch, the` in body size
 * comes as one item of the small size, and its line reads as small type. Matched against the items in drawing
 * order, these sizes give the size most of an item's characters really have.
 */
export class DrawnSizes {
  /** Every drawn character but whitespace, in drawing order. */
  private readonly chars: string;
  /** The text-space size (font size × text matrix scale) of each UTF-16 unit of `chars`. */
  private readonly sizes: number[];
  /** Each unit's glyph advance, in font sizes (0 for a glyph's second unit), and the move after it to the next. */
  private readonly widths: number[];
  private readonly after: number[];
  private cursor = 0;
  /** Where the last item `ratio` found begins in `chars`, and its length. */
  private last: { at: number; length: number } | null = null;

  constructor(ops: PDFOperatorList) {
    let chars = "";
    const sizes: number[] = [];
    const widths: number[] = [];
    const after: number[] = [];
    let fontSize = 1;
    let scale = 1;
    let charSpacing = 0;
    for (let i = 0; i < ops.fnArray.length; i++) {
      const fn = ops.fnArray[i];
      const args = ops.argsArray[i];
      if (fn === OPS.beginText) scale = 1;
      else if (fn === OPS.setFont) fontSize = Math.abs(Number(args?.[1]) || 1);
      else if (fn === OPS.setCharSpacing) charSpacing = Number(args?.[0]) || 0;
      else if (fn === OPS.setTextMatrix) {
        const m = args?.[0] ?? args;
        scale = Math.hypot(Number(m?.[2]) || 0, Number(m?.[3]) || 0) || 1;
      } else if (fn === OPS.showText && Array.isArray(args?.[0])) {
        // A move between showText operations is no advance of the glyphs before it.
        if (after.length > 0) after[after.length - 1] = Number.NaN;
        for (const glyph of args[0]) {
          // A number of a TJ array moves the pen left by thousandths of the font size.
          if (typeof glyph === "number") {
            if (after.length > 0) after[after.length - 1] -= glyph / 1000;
            continue;
          }
          if (glyph === null || typeof glyph !== "object" || typeof glyph.unicode !== "string") continue;
          const advance = (Number(glyph.width) || 0) / 1000 + charSpacing / fontSize;
          const text = (glyph.unicode as string).replace(/\s+/g, "");
          if (text === "") {
            // A space glyph's advance is part of the move to the next character.
            if (after.length > 0) after[after.length - 1] += advance;
            continue;
          }
          chars += text;
          for (let k = 0; k < text.length; k++) {
            sizes.push(fontSize * scale);
            widths.push(k === 0 ? advance : 0);
            after.push(0);
          }
        }
      }
    }
    this.chars = chars;
    this.sizes = sizes;
    this.widths = widths;
    this.after = after;
  }

  /** Starts matching again from the page's first character (the page's items are read once more). */
  restart(): void {
    this.cursor = 0;
    this.last = null;
  }

  /**
   * How far the first `count` glyphs (characters but whitespace) of the item `ratio` was last asked about advance
   * the pen, in font sizes: their widths and the moves between them, not the move after the last. Undefined when
   * that item was not found, was shorter than two characters, or those glyphs were drawn by more than one text
   * operation (the moves between those are not known here).
   */
  lastAdvance(count: number): number | undefined {
    const last = this.last;
    this.last = null;
    if (!last || count < 1 || count > last.length) return undefined;
    let advance = 0;
    for (let k = last.at; k < last.at + count; k++) {
      advance += this.widths[k];
      if (k < last.at + count - 1) advance += this.after[k];
    }
    return Number.isFinite(advance) && advance > 0 ? advance : undefined;
  }

  /** How far ahead of the last match an item's characters are looked for. */
  private static readonly WINDOW = 4000;

  /**
   * The size most of the item's characters are drawn at over the size of its first one, when the two differ by
   * more than a tenth; else 1. Items are to be asked in drawing order; one not found (text pdf.js rewrote) is 1.
   */
  ratio(str: string): number {
    this.last = null;
    const text = str.replace(/\s+/g, "");
    if (text.length < 2) return 1;
    const ahead = this.chars.slice(this.cursor, this.cursor + DrawnSizes.WINDOW + text.length).indexOf(text);
    if (ahead < 0) return 1;
    const at = this.cursor + ahead;
    this.cursor = at + text.length;
    this.last = { at, length: text.length };
    const weight = new Map<number, number>();
    for (let k = at; k < at + text.length; k++) {
      const size = Math.round(this.sizes[k] * 100) / 100;
      weight.set(size, (weight.get(size) ?? 0) + 1);
    }
    let dominant = this.sizes[at];
    let best = 0;
    for (const [size, count] of weight) {
      if (count > best) {
        dominant = size;
        best = count;
      }
    }
    const ratio = dominant / this.sizes[at];
    return Number.isFinite(ratio) && Math.abs(ratio - 1) > 0.1 ? ratio : 1;
  }
}

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
  private cursor = 0;

  constructor(ops: PDFOperatorList) {
    let chars = "";
    const sizes: number[] = [];
    let fontSize = 1;
    let scale = 1;
    for (let i = 0; i < ops.fnArray.length; i++) {
      const fn = ops.fnArray[i];
      const args = ops.argsArray[i];
      if (fn === OPS.beginText) scale = 1;
      else if (fn === OPS.setFont) fontSize = Math.abs(Number(args?.[1]) || 1);
      else if (fn === OPS.setTextMatrix) {
        const m = args?.[0] ?? args;
        scale = Math.hypot(Number(m?.[2]) || 0, Number(m?.[3]) || 0) || 1;
      } else if (fn === OPS.showText && Array.isArray(args?.[0])) {
        for (const glyph of args[0]) {
          if (glyph === null || typeof glyph !== "object" || typeof glyph.unicode !== "string") continue;
          const text = (glyph.unicode as string).replace(/\s+/g, "");
          chars += text;
          for (let k = 0; k < text.length; k++) sizes.push(fontSize * scale);
        }
      }
    }
    this.chars = chars;
    this.sizes = sizes;
  }

  /** Starts matching again from the page's first character (the page's items are read once more). */
  restart(): void {
    this.cursor = 0;
  }

  /** How far ahead of the last match an item's characters are looked for. */
  private static readonly WINDOW = 4000;

  /**
   * The size most of the item's characters are drawn at over the size of its first one, when the two differ by
   * more than a tenth; else 1. Items are to be asked in drawing order; one not found (text pdf.js rewrote) is 1.
   */
  ratio(str: string): number {
    const text = str.replace(/\s+/g, "");
    if (text.length < 2) return 1;
    const ahead = this.chars.slice(this.cursor, this.cursor + DrawnSizes.WINDOW + text.length).indexOf(text);
    if (ahead < 0) return 1;
    const at = this.cursor + ahead;
    this.cursor = at + text.length;
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

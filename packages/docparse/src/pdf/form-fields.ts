import type { PDFPageProxy } from "pdfjs-dist/types/src/display/api.js";
import type { TextRun } from "../paginated/geometry.ts";

/** A form field's widget, as far as we read it from pdf.js's annotation data. */
interface WidgetData {
  subtype?: string;
  fieldType?: string;
  fieldValue?: unknown;
  textContent?: string[];
  rect?: number[];
  hidden?: boolean;
  defaultAppearanceData?: { fontSize?: number };
}

/** What a text or choice field shows: the text of its appearance, else its value; "" when it shows nothing. */
function shownText(widget: WidgetData): string {
  if (widget.textContent && widget.textContent.length > 0) return widget.textContent.join(" ").trim();
  const value = widget.fieldValue;
  if (typeof value === "string") return value.trim();
  if (Array.isArray(value))
    return value
      .filter((v) => typeof v === "string")
      .join(", ")
      .trim();
  return "";
}

/**
 * The filled-in values of a page's form fields (text fields and choice lists) as text runs in model
 * coordinates: a form's answers are what the reader sees on it, though they live in the widgets and not in the
 * page's content. Checkboxes, radio buttons and push buttons give none.
 */
export async function formFieldRuns(page: PDFPageProxy, transform: readonly number[]): Promise<TextRun[]> {
  const annotations = (await page.getAnnotations({ intent: "display" })) as WidgetData[];
  const runs: TextRun[] = [];
  for (const widget of annotations) {
    if (widget.subtype !== "Widget" || widget.hidden) continue;
    if (widget.fieldType !== "Tx" && widget.fieldType !== "Ch") continue;
    const text = shownText(widget).replace(/\s+/g, " ");
    const rect = widget.rect;
    if (!text || !rect || rect.length !== 4) continue;
    const [a, b, c, d, e, f] = transform;
    const corners = [
      [rect[0], rect[1]],
      [rect[2], rect[3]],
    ].map(([x, y]) => [a * x + c * y + e, b * x + d * y + f]);
    const x1 = Math.min(corners[0][0], corners[1][0]);
    const x2 = Math.max(corners[0][0], corners[1][0]);
    const y1 = Math.min(corners[0][1], corners[1][1]);
    const y2 = Math.max(corners[0][1], corners[1][1]);
    if (x2 - x1 < 1 || y2 - y1 < 1) continue;
    // An automatic size (0) fills most of the field's height.
    const fontSize = Math.min(y2 - y1, widget.defaultAppearanceData?.fontSize || (y2 - y1) * 0.7);
    const middle = (y1 + y2) / 2;
    // The value is set from the field's left edge, about half an em a character, within the field.
    const left = Math.min(x1 + 2, x2);
    const right = Math.min(x2, left + text.length * fontSize * 0.5);
    runs.push({
      text,
      box: { x1: left, y1: middle - fontSize / 2, x2: Math.max(right, left + 1), y2: middle + fontSize / 2 },
      fontName: "form-field",
      fontSize,
      bold: false,
      italic: false,
      dir: /[\u0590-\u08ff]/.test(text) ? "rtl" : "ltr",
      confidence: 1,
    });
  }
  return runs;
}

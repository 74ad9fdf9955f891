/**
 * Edits of pdf.js's text extraction (getTextContent) that change what is read, applied with worker-patch.ts's
 * other edits. Both keep text that pdf.js as published loses and pdftotext reads:
 *
 * - a glyph whose ToUnicode text starts with a space and goes on (`<2E> <0020002E>`: a point mapped to " .", as a
 *   typesetter maps the decimal point of tabular figures) is text. pdf.js's test for a whitespace glyph is
 *   anchored at the start only (`^(\s)|...`), so it took " ." for a space and dropped the point, in numbers and in
 *   leader dots alike.
 * - text drawn inside a marked-content span with an `/ActualText` (`/Span <</ActualText (.)>> BDC (.) Tj EMC`) reads
 *   as that text, as the PDF says it should and as pdftotext reads it: the glyphs drawn in the span give way to one
 *   item of the ActualText, from where the span's first glyph starts to where its last ends. Only when they differ
 *   from it, and only for a span drawn on one baseline, upright (a span over several lines, or over no glyph at
 *   all, such as a figure's, is left as drawn); a span nested in it counts as its own. An ActualText with nothing
 *   to read (empty, or control characters only: Word's check boxes) leaves the glyphs as drawn: an empty one
 *   marks a hyphen that is only shown, which the paragraph rules join already (removing a line-end hyphen would
 *   split its word at the join). One that is only a TeX macro's name and punctuation (`\faTrophy :`, the name of an
 *   icon that a class wrote unexpanded) is no text: the span reads as nothing, its icon glyph with it. The span's
 *   glyphs are counted from its first glyph, not from its start: pdf.js may send the items read so far on to the
 *   caller between the two (a font set inside the span), and a span counted from before that found no glyphs.
 */

/** One edit of the worker's source, as worker-patch.ts applies it. */
interface SourceEdit {
  why: string;
  find: string;
  replace: string;
}

/** The span being read and its helpers, in getTextContent's scope (they use its items, state and transforms). */
const SPAN_STATE = `
    let svcActual = null;
    function svcBeginActualText(args) {
      if (svcActual) {
        svcActual.depth++;
        return;
      }
      const actual = args?.[1] instanceof Dict ? args[1].get("ActualText") : undefined;
      if (typeof actual !== "string") {
        return;
      }
      svcActual = { text: stringToPDFString(actual), depth: 0, items: textContent.items, from: textContent.items.length, start: null, fontName: null };
    }
    function svcEndActualText() {
      if (!svcActual) {
        return;
      }
      if (svcActual.depth > 0) {
        svcActual.depth--;
        return;
      }
      const span = svcActual;
      svcActual = null;
      if (!span.start || span.items !== textContent.items) {
        return;
      }
      const start = span.start;
      const end = getCurrentTextTransform();
      const drawn = span.items.slice(span.from).filter(item => typeof item.str === "string" && item.str.trim() !== "");
      if (!/[\\p{L}\\p{N}\\p{P}\\p{S}\\p{Zs}]/u.test(span.text) || drawn.map(item => item.str).join("") === span.text) {
        return;
      }
      const macroOnly = /\\\\[A-Za-z]/.test(span.text) && !/[\\p{L}\\p{N}]/u.test(span.text.replace(/\\\\[A-Za-z]+/g, ""));
      const level = start[0] > 0 && start[1] === 0 && start[2] === 0 && end[1] === 0 && end[2] === 0 && Math.abs(end[5] - start[5]) <= Math.abs(start[3]) * 0.1 && end[4] >= start[4];
      if (!level || /[\\r\\n]/.test(span.text)) {
        return;
      }
      for (let i = span.items.length - 1; i >= span.from; i--) {
        const item = span.items[i];
        if (typeof item.str === "string" && item.str.trim() !== "") {
          span.items.splice(i, 1);
        }
      }
      if (macroOnly) {
        return;
      }
      const { str, dir } = bidi(span.text, -1, false);
      span.items.push({ str, dir, width: end[4] - start[4], height: Math.abs(start[3]), transform: start, fontName: span.fontName, hasEOL: false });
      textContentItem.prevTransform = end;
      resetLastChars();
    }
`;

export const TEXT_EDITS: readonly SourceEdit[] = [
  {
    why: "a glyph is whitespace when its whole text is (pdf.js tested only its first character, and dropped a point mapped to ' .')",
    find: 'const SpecialCharRegExp = new RegExp("^(\\\\s)|(\\\\p{Mn})|(\\\\p{Cf})$", "u");',
    replace: 'const SpecialCharRegExp = new RegExp("^(\\\\s+)$|(\\\\p{Mn})|(\\\\p{Cf})$", "u");',
  },
  {
    why: "the ActualText span being read, and its replacement of the glyphs drawn in it",
    find: "    const showSpacedTextBuffer = [];\n",
    replace: `    const showSpacedTextBuffer = [];\n${SPAN_STATE}`,
  },
  {
    why: "an ActualText span starts where its first glyph is drawn, in that glyph's font",
    find: "      const glyphs = font.charsToGlyphs(chars);\n      const scale = textState.fontMatrix[0] * textState.fontSize;\n",
    replace:
      "      if (svcActual && !svcActual.start) {\n        svcActual.start = getCurrentTextTransform();\n        svcActual.fontName = textState.loadedName;\n        svcActual.items = textContent.items;\n        svcActual.from = textContent.items.length;\n      }\n      const glyphs = font.charsToGlyphs(chars);\n      const scale = textState.fontMatrix[0] * textState.fontSize;\n",
  },
  {
    why: "a marked-content span without properties nested in an ActualText span",
    find: "          case OPS.beginMarkedContent:\n            flushTextContentItem();\n",
    replace:
      "          case OPS.beginMarkedContent:\n            flushTextContentItem();\n            if (svcActual) {\n              svcActual.depth++;\n            }\n",
  },
  {
    why: "a marked-content span with properties: an ActualText starts one",
    find: "          case OPS.beginMarkedContentProps:\n            flushTextContentItem();\n",
    replace:
      "          case OPS.beginMarkedContentProps:\n            flushTextContentItem();\n            svcBeginActualText(args);\n",
  },
  {
    why: "the end of a marked-content span: an ActualText span's glyphs give way to its text",
    find: "          case OPS.endMarkedContent:\n            flushTextContentItem();\n",
    replace:
      "          case OPS.endMarkedContent:\n            flushTextContentItem();\n            svcEndActualText();\n",
  },
];

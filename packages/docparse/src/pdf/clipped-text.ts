import type { WorkerEdit } from "./worker-edit.ts";

/**
 * Text drawn past its clip. A spreadsheet printed to PDF draws a cell's whole text and clips it to the cell's
 * rectangle (`re W n`): a long entry overflowing into the next columns shows only up to its cell's edge. pdf.js's
 * text layer knows no clip, so the entry reads whole across the next cells' figures, overlapping them, and glyphs
 * drawn right after its hidden end (the next cell's amount) join it in one item (`29.01.20161074935`).
 *
 * The worker edits below follow rectangular clips through the text pass (a clip made of one or more rectangles,
 * under the current transform; a clip of any other shape is not followed) and end pdf.js's item where a glyph's
 * middle turns from inside its clip to outside or back, marking items whose glyphs lie outside it `svcClipped`.
 * `TextRun`s are then made as before, except that a clipped item carrying on the run before it on its line (the
 * hidden rest of a visible entry) is read as part of that run's text and adds nothing to its box: the cell keeps
 * its whole text, as the spreadsheet holds it and pdftotext reads it, and its box ends where it is seen to end.
 */

/** The helpers the edits call: the clip's box in user space (x1 y1 x2 y2, null for none), a path being built. */
const CLIP_TRACKING = `
let svcClipPath = null;
let svcClipPending = false;
function svcTrackClip(fn, args) {
  if (fn === OPS.rectangle) {
    if (svcClipPath === false || !args || args.length < 4) return;
    const m = textState.ctm;
    const [x, y, w, h] = args;
    const xs = [], ys = [];
    for (const [px, py] of [[x, y], [x + w, y], [x, y + h], [x + w, y + h]]) {
      xs.push(m[0] * px + m[2] * py + m[4]);
      ys.push(m[1] * px + m[3] * py + m[5]);
    }
    const box = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    svcClipPath = svcClipPath ? [Math.min(svcClipPath[0], box[0]), Math.min(svcClipPath[1], box[1]), Math.max(svcClipPath[2], box[2]), Math.max(svcClipPath[3], box[3])] : box;
  } else if (fn >= OPS.moveTo && fn <= OPS.closePath) {
    svcClipPath = false;
  } else if (fn === OPS.clip || fn === OPS.eoClip) {
    svcClipPending = true;
  } else if (fn >= OPS.stroke && fn <= OPS.endPath) {
    if (svcClipPending && svcClipPath) {
      const old = textState.svcClip;
      const box = old ? [Math.max(old[0], svcClipPath[0]), Math.max(old[1], svcClipPath[1]), Math.min(old[2], svcClipPath[2]), Math.min(old[3], svcClipPath[3])] : svcClipPath;
      const wholePage = box[0] <= viewBox[0] && box[1] <= viewBox[1] && box[2] >= viewBox[2] && box[3] >= viewBox[3];
      textState.svcClip = wholePage ? null : box;
    }
    svcClipPath = null;
    svcClipPending = false;
  }
}
function svcGlyphClipped(width) {
  const clip = textState.svcClip;
  if (!clip || textState.font.vertical) return false;
  const tm = textState.textMatrix;
  const ctm = textState.ctm;
  const a = width * textState.textHScale / 2;
  const b = textState.textRise + 0.3 * textState.fontSize;
  const ux = tm[0] * a + tm[2] * b + tm[4];
  const uy = tm[1] * a + tm[3] * b + tm[5];
  const px = ctm[0] * ux + ctm[2] * uy + ctm[4];
  const py = ctm[1] * ux + ctm[3] * uy + ctm[5];
  return px < clip[0] || px > clip[2] || py < clip[1] || py > clip[3];
}
`;

export const CLIPPED_TEXT_EDITS: readonly WorkerEdit[] = [
  {
    why: "helpers that follow a rectangular clip through the text pass and tell whether a glyph's middle lies outside it; an item takes the rectangle its first glyph is clipped to",
    find: "    function ensureTextContentItem() {\n      if (textContentItem.initialized) {\n        return textContentItem;\n      }\n",
    replace: `${CLIP_TRACKING}    function ensureTextContentItem() {\n      if (textContentItem.initialized) {\n        return textContentItem;\n      }\n      textContentItem.svcClipBox = textState.svcClip ?? null;\n`,
  },
  {
    why: "every operator of the text pass goes by the clip tracking (rectangles, other path parts, W and W*, the painting operator that ends a path)",
    find: "        textState = stateManager.state;\n        currentTextState ||= textState.clone();\n",
    replace:
      "        textState = stateManager.state;\n        currentTextState ||= textState.clone();\n        svcTrackClip(operation.fn, operation.args);\n",
  },
  {
    why: "an item ends where its glyphs turn from inside their clip to outside it or back, and knows which it holds",
    find: '          saveLastChar(" ");\n          continue;\n        }\n',
    replace: `          saveLastChar(" ");\n          continue;\n        }\n        const svcClipped = svcGlyphClipped(scaledDim);\n        if (svcClipped !== !!textContentItem.svcClipped) {\n          flushTextContentItem();\n          textContentItem.svcClipped = svcClipped;\n        }\n`,
  },
  {
    why: "an item of glyphs drawn outside their clip says so, and names the clip's rectangle",
    find: "        hasEOL: textChunk.hasEOL\n",
    replace:
      "        hasEOL: textChunk.hasEOL,\n        ...(textChunk.svcClipped ? { svcClipped: true, svcClipBox: textChunk.svcClipBox } : {})\n",
  },
];

/** The least a run needs to know of the item before it: where it ends along x, its baseline and size. */
interface RunEnd {
  x2: number;
  baseline: number;
  size: number;
}

/**
 * Whether a clipped item starting at (`x`, `baseline`) carries on the run before it: on its baseline, starting
 * where that run's visible glyphs end (up to a space's width before or after; a font size of slack).
 */
export function carriesOn(before: RunEnd, x: number, baseline: number): boolean {
  return Math.abs(baseline - before.baseline) < 0.2 * before.size && Math.abs(x - before.x2) < before.size;
}

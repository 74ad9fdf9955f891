/**
 * A render of a page's crops for OCR (render.ts `text: false`) shows a small part of the page, yet pdf.js builds
 * the render's operator list for all of it: every image on the page is decoded (JPEG in JavaScript, colour
 * conversion) and handed to the display side, every form XObject is read, and both are painted onto a canvas that
 * clips them away. Profiles of the crop renders of born-digital pages found those decodes and paints most of a
 * render's cost.
 *
 * These edits, applied with worker-patch.ts's, let such a render name its region: the part of the page it and the
 * renders sharing its operator list (`keepPage`) show, in the page's PDF space, passed on the document's port
 * (worker-port.ts `renderRegions`). The worker then leaves out an image (XObject or inline) whose placement lies
 * wholly outside that region, a form XObject whose box does (a form's content is clipped to its box), and a filled
 * path that does (strokes, whose width the worker does not follow, and paths that clip are kept). Nothing outside
 * the region reaches a pixel of the crop, so the crop's pixels are the same.
 *
 * To know where things are drawn, the worker's graphics state follows form matrices too (pdf.js tracked `cm`
 * only). Type3 glyph procedures (cached with their font for every render) and tiling patterns' cells (drawn in
 * pattern space) leave nothing out. Renders with text, and the operator list pass, are unchanged.
 */

import type { WorkerEdit } from "./worker-edit.ts";

/** Margin around a region, in PDF units: an edge's anti-aliasing is never cut off. */
const MARGIN = 2;

/** Worker-side helpers: whether a placed unit square or a form's box falls wholly outside the region. */
const HELPERS = `
function svcOutsideRegion(evaluator, state, rect, matrix) {
  const region = evaluator.svcRegion;
  if (!region || evaluator.parsingType3Font || state.svcUnplaced) {
    return false;
  }
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  Util.axialAlignedBoundingBox(rect, matrix ? Util.transform(state.ctm, matrix) : state.ctm, box);
  if (!box.every(Number.isFinite)) {
    return false;
  }
  return box[2] < region[0] - ${MARGIN} || box[0] > region[2] + ${MARGIN} || box[3] < region[1] - ${MARGIN} || box[1] > region[3] + ${MARGIN};
}
function svcXObjectOutside(evaluator, state, xobjs, name) {
  if (!evaluator.svcRegion) {
    return false;
  }
  try {
    const xobj = evaluator.xref.fetchIfRef(xobjs.getRaw(name));
    if (!(xobj instanceof BaseStream)) {
      return false;
    }
    const subtype = xobj.dict.get("Subtype");
    if (isName(subtype, "Image")) {
      return svcOutsideRegion(evaluator, state, [0, 0, 1, 1], null);
    }
    const bbox = isName(subtype, "Form") ? lookupNormalRect(xobj.dict.getArray("BBox"), null) : null;
    return !!bbox && svcOutsideRegion(evaluator, state, bbox, lookupMatrix(xobj.dict.getArray("Matrix"), null));
  } catch {
    return false;
  }
}
function svcFillOutside(evaluator, state, operatorList) {
  const last = operatorList.length > 0 ? operatorList.fnArray[operatorList.length - 1] : OPS.clip;
  return last !== OPS.clip && last !== OPS.eoClip && svcOutsideRegion(evaluator, state, state.pathMinMax, null);
}
function svcUnplacedState() {
  const state = new EvalState();
  state.svcUnplaced = true;
  return state;
}
class StateManager {`;

export const REGION_EDITS: readonly WorkerEdit[] = [
  {
    why: "the tests of what lies outside a render's region (render-region.ts)",
    find: "class StateManager {",
    replace: HELPERS,
  },
  {
    why: "a render without its text takes the region its port names for the page, if any",
    find: "      const opList = new OperatorList(intent, sink);",
    replace: `      partialEvaluator.svcRegion = partialEvaluator.svcTextless ? handler.comObj?.renderRegions?.get(pageIndex) ?? null : null;
      const opList = new OperatorList(intent, sink);`,
  },
  {
    why: "an image or form XObject wholly outside the render's region is left out: not decoded, not read, not painted",
    find: `          case OPS.paintXObject:
            isValidName = args[0] instanceof Name;
            name = args[0].name;
`,
    replace: `          case OPS.paintXObject:
            isValidName = args[0] instanceof Name;
            name = args[0].name;
            if (isValidName && svcXObjectOutside(self, stateManager.state, xobjs, name)) {
              continue;
            }
`,
  },
  {
    why: "an inline image wholly outside the render's region is left out",
    find: `          case OPS.endInlineImage:
            const cacheKey = args[0].cacheKey;`,
    replace: `          case OPS.endInlineImage:
            if (svcOutsideRegion(self, stateManager.state, [0, 0, 1, 1], null)) {
              continue;
            }
            const cacheKey = args[0].cacheKey;`,
  },
  {
    why: "a filled path wholly outside the render's region is left out, unless a clip waits for it (W f: when the operator before it is a clip, or cannot be seen)",
    find: `              if (pathBuffer.length === 0) {
                operatorList.addOp(OPS.constructPath, [fn, [null], null]);
              } else {`,
    replace: `              if (pathBuffer.length > 0 && (fn === OPS.fill || fn === OPS.eoFill) && svcFillOutside(self, stateManager.state, operatorList)) {
                pathBuffer.length = 0;
                pathMinMax.set([Infinity, Infinity, -Infinity, -Infinity], 0);
              } else if (pathBuffer.length === 0) {
                operatorList.addOp(OPS.constructPath, [fn, [null], null]);
              } else {`,
  },
  {
    why: "inside a form XObject, the graphics state's matrix includes the form's (pdf.js tracked cm only), so what it draws is placed right",
    find: `    const f32matrix = matrix && new Float32Array(matrix);
    const args = [f32matrix, !group && f32bbox || null];`,
    replace: `    if (matrix && this.svcRegion && initialState) {
      initialState.ctm = Util.transform(initialState.ctm, matrix);
    }
    const f32matrix = matrix && new Float32Array(matrix);
    const args = [f32matrix, !group && f32bbox || null];`,
  },
  {
    why: "a tiling pattern's cell is drawn in pattern space, not placed on the page: nothing in it is left out",
    find: `      resources: patternResources,
      operatorList: tilingOpList
    }).then(function () {`,
    replace: `      resources: patternResources,
      operatorList: tilingOpList,
      initialState: this.svcRegion ? svcUnplacedState() : null
    }).then(function () {`,
  },
];

import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList } from "pdfjs-dist/types/src/display/api.js";
import type { Box } from "../model.ts";
import { box, type ImagePlacement, type Rule, type TextRun } from "../paginated/geometry.ts";
import { type Matrix, multiply } from "./matrix.ts";

/**
 * What a page draws besides its text, read off pdf.js's operator list, in model coordinates (points, origin top
 * left, the page's rotation applied). Annotation appearances (link borders, form fields) are not page content
 * and are left out, as the text layer leaves out their text.
 */
export interface PageGraphics {
  /** Horizontal and vertical ruling lines: stroked segments, thin filled rectangles, edges of stroked boxes. */
  rules: Rule[];
  /** Filled or stroked rectangles too large to be rules (cell shading, frames); white fills are left out. */
  rects: Box[];
  images: ImagePlacement[];
  /** Where each of `images` comes from: its paint operator's index and the matrix it is drawn under. */
  imageDraws: ImageDraw[];
  /**
   * Boxes of text drawn invisibly, as an OCR layer over a scan draws it: render mode 3 or 7, a fully transparent
   * fill, or text under images painted after it when that is most of the page's text. Consecutive pieces on one
   * line are joined into one box, as pdf.js joins them into one text item.
   */
  invisibleText: Box[];
  /** How many glyphs (spaces not counted) the page draws invisibly, and visibly. */
  invisibleGlyphs: number;
  visibleGlyphs: number;
  /** Bounding boxes of painted paths that are neither rules nor rectangles (curves, diagonals, polygons): one per
   * path, so a vector figure shows up as a cluster of them. */
  drawings: Box[];
  /** Open stroked straight-segment paths with a slanted segment (the lines of line charts), as their points. */
  polylines: Polyline[];
  /**
   * Boxes of the painted subpaths that are not rectangles, whatever path they belong to: a word drawn as one
   * compound path shows here letter by letter, as a word drawn one path per letter does. A subpath inside one
   * drawn just before it in the same path (the counter of an o) is part of that one and left out.
   */
  outlines: Box[];
  /**
   * The same of paths filled white: no ink on a white page, but type on a coloured ground (a banner's title
   * converted to outlines).
   */
  lightOutlines: Box[];
  /**
   * Boxes of text a viewer cannot see: filled white (render mode 0 or 4) where nothing was painted under it, on a
   * page without shadings (whose extent is not known here). pdftotext reads such text (a `SPACER TEXT` at a
   * page's corner, a cell's white label); a reader sees a blank page there.
   */
  hiddenText: Box[];
}

/** The paint operator of an image placement (an index into the operator list) and the unit square's matrix. */
export interface ImageDraw {
  op: number;
  transform: Matrix;
}

/** The points of an open stroked path, in model coordinates, in drawing order. */
export type Polyline = { x: number; y: number }[];

/** Points sampled along each curve segment for a drawing's box. */
const CURVE_SAMPLES = 8;

/** How many of a path's outlines just before a subpath are looked at for one holding it (a glyph's counters). */
const COUNTER_LOOKBACK = 3;

/** Rectangles at most this thick (points) are rules. */
const THIN = 3;
/** Strokes thinner than this (points) are no ground for white text: half a 4 pt word is wider than they are. */
const STROKE_GROUND_MIN = 2;
/** Tolerance in points for "horizontal", "vertical" and "the same line". */
const ALIGN = 0.5;
/** Rules on one line whose ends are at most this far apart are one rule. */
const JOIN_GAP = 1;
/** Glyph extent above and below the baseline, in font sizes, when the font's own metrics are not at hand. */
const ASCENT = 0.8;
const DESCENT = 0.2;

interface GraphicsState {
  /** User space → model coordinates: the viewport transform times the CTM. Replaced, never mutated. */
  m: Matrix;
  lineWidth: number;
  fillVisible: boolean;
  strokeVisible: boolean;
  fillColorVisible: boolean;
  /** The fill colour is white (or near it). */
  fillWhite: boolean;
  strokeColorVisible: boolean;
  fillAlpha: number;
  strokeAlpha: number;
  fontSize: number;
  fontDirection: number;
  charSpacing: number;
  wordSpacing: number;
  hScale: number;
  leading: number;
  rise: number;
  renderMode: number;
  /** The text matrix (null: identity) and the position within it, as pdf.js's canvas tracks them. */
  tm: Matrix | null;
  x: number;
  y: number;
  lineX: number;
  lineY: number;
}

/** The box of the parallelogram (x0,y0)-(x1,y1) under m. */
function boxUnder(m: Matrix, x0: number, y0: number, x1: number, y1: number): Box {
  const ax = m[0] * x0 + m[2] * y0 + m[4];
  const ay = m[1] * x0 + m[3] * y0 + m[5];
  const bx = m[0] * x1 + m[2] * y0 + m[4];
  const by = m[1] * x1 + m[3] * y0 + m[5];
  const cx = m[0] * x0 + m[2] * y1 + m[4];
  const cy = m[1] * x0 + m[3] * y1 + m[5];
  const dx = m[0] * x1 + m[2] * y1 + m[4];
  const dy = m[1] * x1 + m[3] * y1 + m[5];
  return {
    x1: Math.min(ax, bx, cx, dx),
    y1: Math.min(ay, by, cy, dy),
    x2: Math.max(ax, bx, cx, dx),
    y2: Math.max(ay, by, cy, dy),
  };
}

/** `#rrggbb` at or near white: invisible on a white page, so no rule and no shading. */
function isWhite(hex: unknown): boolean {
  if (typeof hex !== "string" || hex.length !== 7) return false;
  const r = Number.parseInt(hex.slice(1, 3), 16);
  const g = Number.parseInt(hex.slice(3, 5), 16);
  const b = Number.parseInt(hex.slice(5, 7), 16);
  return r >= 245 && g >= 245 && b >= 245;
}

interface TextPiece {
  box: Box;
  glyphs: number;
  op: number;
}

/** Collects what one walk over the operator list finds. */
class Collector {
  readonly rules: Rule[] = [];
  readonly rects: Box[] = [];
  readonly images: ImagePlacement[] = [];
  readonly imageOps: number[] = [];
  readonly imageMatrices: Matrix[] = [];
  readonly drawings: Box[] = [];
  readonly polylines: Polyline[] = [];
  readonly outlines: Box[] = [];
  readonly lightOutlines: Box[] = [];
  /** Whether the current path is filled white (only its outlines are kept), and where they start in their list. */
  light = false;
  pathOutlines = 0;
  readonly invisible: TextPiece[] = [];
  readonly visible: TextPiece[] = [];
  /**
   * Visible text filled white, the boxes of what was filled under anything (paths, images) and the bands strokes
   * painted; a shading.
   */
  readonly white: TextPiece[] = [];
  readonly grounds: Box[] = [];
  readonly strokeGrounds: Box[] = [];
  shaded = false;
  invisibleGlyphs = 0;
  visibleGlyphs = 0;
  // The current subpath, in model coordinates.
  pts = new Float64Array(64);
  n = 0;
  curved = false;
  startX = 0;
  startY = 0;
  // The union of the current path's points that are neither rules nor rectangles.
  dx1 = Number.POSITIVE_INFINITY;
  dy1 = Number.POSITIVE_INFINITY;
  dx2 = Number.NEGATIVE_INFINITY;
  dy2 = Number.NEGATIVE_INFINITY;

  rule(x1: number, y1: number, x2: number, y2: number, width: number, orientation: "h" | "v"): void {
    if (orientation === "h") {
      const y = (y1 + y2) / 2;
      this.rules.push({ x1: Math.min(x1, x2), y1: y, x2: Math.max(x1, x2), y2: y, width, orientation });
    } else {
      const x = (x1 + x2) / 2;
      this.rules.push({ x1: x, y1: Math.min(y1, y2), x2: x, y2: Math.max(y1, y2), width, orientation });
    }
  }

  /** A filled box: a rule when thin and long, a rectangle when large, a drawing when a small blob. */
  filledBox(b: Box): void {
    const w = b.x2 - b.x1;
    const h = b.y2 - b.y1;
    const thin = Math.min(w, h);
    const long = Math.max(w, h);
    if (long < 1) return;
    if (thin <= THIN) {
      if (long >= 2 * thin) {
        if (w >= h) this.rule(b.x1, b.y1, b.x2, b.y2, h, "h");
        else this.rule(b.x1, b.y1, b.x2, b.y2, w, "v");
      } else {
        this.drawingBox(b);
      }
      return;
    }
    this.rects.push(b);
  }

  /**
   * A stroke paints a band as wide as its line along its path, ground under white text when it covers half of it
   * or more (a caption's white type on a line stroked 12 pt wide as its coloured bar); a cell's rule touching a
   * white word is not. Each straight segment is its own band, so a frame stroked round white text grounds its
   * edges only, not the blank inside. A line thinner than STROKE_GROUND_MIN covers half of no word set at twice its
   * width or more, so it records no band: a chart's or map's thousands of hairline segments cost nothing here.
   */
  strokeGround(x1: number, y1: number, x2: number, y2: number, lineWidth: number): void {
    if (lineWidth < STROKE_GROUND_MIN) return;
    const half = lineWidth / 2;
    this.strokeGrounds.push({ x1: x1 - half, y1: y1 - half, x2: x2 + half, y2: y2 + half });
  }

  drawingBox(b: Box): void {
    this.dx1 = Math.min(this.dx1, b.x1);
    this.dy1 = Math.min(this.dy1, b.y1);
    this.dx2 = Math.max(this.dx2, b.x2);
    this.dy2 = Math.max(this.dy2, b.y2);
  }

  push(x: number, y: number): void {
    if (this.n * 2 + 2 > this.pts.length) {
      const grown = new Float64Array(this.pts.length * 2);
      grown.set(this.pts);
      this.pts = grown;
    }
    this.pts[this.n * 2] = x;
    this.pts[this.n * 2 + 1] = y;
    this.n++;
  }

  /** Classifies the current subpath as a rectangle, rules or a drawing, then starts a new one. */
  flush(fill: boolean, stroke: boolean, closed: boolean, lineWidth: number): void {
    const { pts } = this;
    let n = this.n;
    const curved = this.curved;
    this.n = 0;
    this.curved = false;
    if (n === 0) return;
    if (this.light) {
      if (curved || n < 4 || n > 5 || !axisRect(pts)) this.outline(n);
      return;
    }
    if (curved) {
      this.outline(n);
      for (let k = 0; k < n; k++) this.drawingPoint(pts[k * 2], pts[k * 2 + 1]);
      if (stroke) {
        let x1 = pts[0];
        let y1 = pts[1];
        let x2 = x1;
        let y2 = y1;
        for (let k = 1; k < n; k++) {
          x1 = Math.min(x1, pts[k * 2]);
          x2 = Math.max(x2, pts[k * 2]);
          y1 = Math.min(y1, pts[k * 2 + 1]);
          y2 = Math.max(y2, pts[k * 2 + 1]);
        }
        this.strokeGround(x1, y1, x2, y2, lineWidth);
      }
      return;
    }
    // Drop repeated points and a closing point equal to the start.
    let w = 1;
    for (let k = 1; k < n; k++) {
      const x = pts[k * 2];
      const y = pts[k * 2 + 1];
      if (Math.abs(x - pts[(w - 1) * 2]) > 0.01 || Math.abs(y - pts[(w - 1) * 2 + 1]) > 0.01) {
        pts[w * 2] = x;
        pts[w * 2 + 1] = y;
        w++;
      }
    }
    n = w;
    let isClosed = closed;
    if (
      n > 2 &&
      Math.abs(pts[0] - pts[(n - 1) * 2]) <= 0.01 &&
      Math.abs(pts[1] - pts[(n - 1) * 2 + 1]) <= 0.01
    ) {
      n--;
      isClosed = true;
    }
    if (n === 4 && (isClosed || !stroke)) {
      const rect = axisRect(pts);
      if (rect) {
        this.paintRect(rect, fill, stroke, lineWidth);
        return;
      }
    }
    if (n >= 2) this.outline(n);
    if (stroke && !isClosed && n >= 3) this.polyline(pts, n);
    if (stroke) {
      const segments = isClosed ? n : n - 1;
      for (let k = 0; k < segments; k++) {
        const j = (k + 1) % n;
        const x1 = pts[k * 2];
        const y1 = pts[k * 2 + 1];
        const x2 = pts[j * 2];
        const y2 = pts[j * 2 + 1];
        const ax = Math.abs(x2 - x1);
        const ay = Math.abs(y2 - y1);
        this.strokeGround(Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2), lineWidth);
        if (ay <= ALIGN && ax > ay) this.rule(x1, y1, x2, y2, lineWidth, "h");
        else if (ax <= ALIGN && ay > ax) this.rule(x1, y1, x2, y2, lineWidth, "v");
        else if (ax > ALIGN || ay > ALIGN) {
          this.drawingPoint(x1, y1);
          this.drawingPoint(x2, y2);
        }
      }
    }
    if (fill && n >= 3) {
      for (let k = 0; k < n; k++) this.drawingPoint(pts[k * 2], pts[k * 2 + 1]);
    }
  }

  /**
   * Records the box of the subpath's first n points as an outline, unless it lies inside one of the few outlines
   * of the same path recorded just before it (a letter's counter follows the letter's outer contour).
   */
  outline(n: number): void {
    const { pts } = this;
    let x1 = pts[0];
    let y1 = pts[1];
    let x2 = x1;
    let y2 = y1;
    for (let k = 1; k < n; k++) {
      const x = pts[k * 2];
      const y = pts[k * 2 + 1];
      if (x < x1) x1 = x;
      else if (x > x2) x2 = x;
      if (y < y1) y1 = y;
      else if (y > y2) y2 = y;
    }
    const outlines = this.light ? this.lightOutlines : this.outlines;
    for (
      let k = outlines.length - 1;
      k >= Math.max(this.pathOutlines, outlines.length - COUNTER_LOOKBACK);
      k--
    ) {
      const o = outlines[k];
      if (x1 >= o.x1 && y1 >= o.y1 && x2 <= o.x2 && y2 <= o.y2) return;
    }
    outlines.push({ x1, y1, x2, y2 });
  }

  /** Keeps an open path's points when one of its segments is slanted (a plotted line, not a ruling). */
  polyline(pts: Float64Array, n: number): void {
    let slanted = false;
    for (let k = 1; k < n && !slanted; k++) {
      slanted =
        Math.abs(pts[k * 2] - pts[k * 2 - 2]) > ALIGN && Math.abs(pts[k * 2 + 1] - pts[k * 2 - 1]) > ALIGN;
    }
    if (!slanted) return;
    const points: Polyline = [];
    for (let k = 0; k < n; k++) points.push({ x: pts[k * 2], y: pts[k * 2 + 1] });
    this.polylines.push(points);
  }

  paintRect(b: Box, fill: boolean, stroke: boolean, lineWidth: number): void {
    const w = b.x2 - b.x1;
    const h = b.y2 - b.y1;
    if (stroke) {
      if (Math.min(w, h) <= THIN) {
        // A thin stroked box reads as one line as thick as the box and its stroke.
        const grown = {
          x1: b.x1 - lineWidth / 2,
          y1: b.y1 - lineWidth / 2,
          x2: b.x2 + lineWidth / 2,
          y2: b.y2 + lineWidth / 2,
        };
        this.strokeGrounds.push(grown);
        this.filledBox(grown);
        return;
      }
      this.strokeGround(b.x1, b.y1, b.x2, b.y1, lineWidth);
      this.strokeGround(b.x1, b.y2, b.x2, b.y2, lineWidth);
      this.strokeGround(b.x1, b.y1, b.x1, b.y2, lineWidth);
      this.strokeGround(b.x2, b.y1, b.x2, b.y2, lineWidth);
      this.rule(b.x1, b.y1, b.x2, b.y1, lineWidth, "h");
      this.rule(b.x1, b.y2, b.x2, b.y2, lineWidth, "h");
      this.rule(b.x1, b.y1, b.x1, b.y2, lineWidth, "v");
      this.rule(b.x2, b.y1, b.x2, b.y2, lineWidth, "v");
      this.rects.push(b);
      return;
    }
    if (fill) this.filledBox(b);
  }

  drawingPoint(x: number, y: number): void {
    if (x < this.dx1) this.dx1 = x;
    if (y < this.dy1) this.dy1 = y;
    if (x > this.dx2) this.dx2 = x;
    if (y > this.dy2) this.dy2 = y;
  }

  /** Ends a painted path: its non-rule parts become one drawing box. */
  endDrawing(): void {
    if (
      this.dx2 >= this.dx1 &&
      this.dy2 >= this.dy1 &&
      (this.dx2 - this.dx1 > 0.5 || this.dy2 - this.dy1 > 0.5)
    ) {
      this.drawings.push({ x1: this.dx1, y1: this.dy1, x2: this.dx2, y2: this.dy2 });
    }
    this.dx1 = this.dy1 = Number.POSITIVE_INFINITY;
    this.dx2 = this.dy2 = Number.NEGATIVE_INFINITY;
  }

  /** An image drawn on the unit square under m: a placement, or a rule when it is a thin line. */
  image(m: Matrix, op: number): void {
    const b = boxUnder(m, 0, 0, 1, 1);
    this.grounds.push(b);
    const w = b.x2 - b.x1;
    const h = b.y2 - b.y1;
    if (Math.min(w, h) <= THIN && Math.max(w, h) >= 2 * Math.min(w, h)) {
      this.filledBox(b);
      this.endDrawing();
      return;
    }
    if (w < 1 || h < 1) return;
    // The same image drawn twice in one place (under a soft-mask shadow, then itself) is one placement.
    const last = this.images.at(-1)?.box;
    if (
      last &&
      Math.abs(last.x1 - b.x1) +
        Math.abs(last.y1 - b.y1) +
        Math.abs(last.x2 - b.x2) +
        Math.abs(last.y2 - b.y2) <
        1
    ) {
      this.imageOps[this.imageOps.length - 1] = op;
      this.imageMatrices[this.imageMatrices.length - 1] = m;
      return;
    }
    this.images.push({ box: b });
    this.imageOps.push(op);
    this.imageMatrices.push(m);
  }
}

/** The four points (x,y pairs) as an axis-aligned rectangle's box, or null. */
function axisRect(p: Float64Array): Box | null {
  const e = ALIGN;
  const a =
    Math.abs(p[0] - p[2]) <= e &&
    Math.abs(p[3] - p[5]) <= e &&
    Math.abs(p[4] - p[6]) <= e &&
    Math.abs(p[7] - p[1]) <= e;
  const b =
    Math.abs(p[1] - p[3]) <= e &&
    Math.abs(p[2] - p[4]) <= e &&
    Math.abs(p[5] - p[7]) <= e &&
    Math.abs(p[6] - p[0]) <= e;
  if (!a && !b) return null;
  return {
    x1: Math.min(p[0], p[2], p[4], p[6]),
    y1: Math.min(p[1], p[3], p[5], p[7]),
    x2: Math.max(p[0], p[2], p[4], p[6]),
    y2: Math.max(p[1], p[3], p[5], p[7]),
  };
}

const FILL_OPS = new Set<number>([
  OPS.fill,
  OPS.eoFill,
  OPS.fillStroke,
  OPS.eoFillStroke,
  OPS.closeFillStroke,
  OPS.closeEOFillStroke,
]);
const STROKE_OPS = new Set<number>([
  OPS.stroke,
  OPS.closeStroke,
  OPS.fillStroke,
  OPS.eoFillStroke,
  OPS.closeFillStroke,
  OPS.closeEOFillStroke,
]);

// pdf.js's DrawOPS: the opcodes inside a constructPath buffer.
const MOVE_TO = 0;
const LINE_TO = 1;
const CURVE_TO = 2;
const QUADRATIC_CURVE_TO = 3;
const CLOSE_PATH = 4;

/** The stroke width in model coordinates: the user-space width scaled by the CTM's mean scale. */
function modelLineWidth(s: GraphicsState): number {
  const { m } = s;
  return s.lineWidth * Math.sqrt(Math.abs(m[0] * m[3] - m[1] * m[2]));
}

/**
 * One painted path of pdf.js 5's constructPath: `[paintOp, [buffer], minMax]`, where the buffer is a flat
 * Float32Array of DrawOPS (moveTo x y, lineTo x y, curveTo x1 y1 x2 y2 x y, quadraticCurveTo x1 y1 x y, closePath)
 * in user space, or null for an empty path.
 */
function paintPath(c: Collector, s: GraphicsState, args: unknown[]): void {
  const paintOp = args[0] as number;
  const fill = FILL_OPS.has(paintOp) && s.fillVisible;
  const stroke = STROKE_OPS.has(paintOp) && s.strokeVisible;
  // A white fill draws nothing this walk keeps but its outlines.
  const light = !fill && !stroke && FILL_OPS.has(paintOp) && s.fillWhite && s.fillAlpha > 0;
  if (!fill && !stroke && !light) return;
  const buffer = (args[1] as (ArrayLike<number> | null)[] | undefined)?.[0];
  if (!buffer) return;
  const extent = args[2] as ArrayLike<number> | null | undefined;
  if (fill && extent && extent.length >= 4)
    c.grounds.push(boxUnder(s.m, extent[0], extent[1], extent[2], extent[3]));
  c.light = light;
  c.pathOutlines = (light ? c.lightOutlines : c.outlines).length;
  const { m } = s;
  const lineWidth = stroke ? modelLineWidth(s) : 0;
  const len = buffer.length;
  let i = 0;
  while (i < len) {
    const op = buffer[i++];
    if (op === MOVE_TO) {
      if (c.n > 0) c.flush(fill, stroke, false, lineWidth);
      const x = buffer[i++];
      const y = buffer[i++];
      const mx = m[0] * x + m[2] * y + m[4];
      const my = m[1] * x + m[3] * y + m[5];
      c.startX = mx;
      c.startY = my;
      c.push(mx, my);
    } else if (op === LINE_TO) {
      if (c.n === 0) c.push(c.startX, c.startY);
      const x = buffer[i++];
      const y = buffer[i++];
      c.push(m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]);
    } else if (op === CURVE_TO || op === QUADRATIC_CURVE_TO) {
      if (c.n === 0) c.push(c.startX, c.startY);
      const points = op === CURVE_TO ? 3 : 2;
      // Control points lie off the curve: points sampled along it bound the ink instead.
      const p0x = c.pts[(c.n - 1) * 2];
      const p0y = c.pts[(c.n - 1) * 2 + 1];
      const ctrl: number[] = [];
      for (let k = 0; k < points; k++) {
        const x = buffer[i++];
        const y = buffer[i++];
        ctrl.push(m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]);
      }
      for (let step = 1; step <= CURVE_SAMPLES; step++) {
        const t = step / CURVE_SAMPLES;
        const u = 1 - t;
        if (points === 3) {
          const [ax, ay, bx, by, ex, ey] = ctrl;
          c.push(
            u * u * u * p0x + 3 * u * u * t * ax + 3 * u * t * t * bx + t * t * t * ex,
            u * u * u * p0y + 3 * u * u * t * ay + 3 * u * t * t * by + t * t * t * ey,
          );
        } else {
          const [ax, ay, ex, ey] = ctrl;
          c.push(u * u * p0x + 2 * u * t * ax + t * t * ex, u * u * p0y + 2 * u * t * ay + t * t * ey);
        }
      }
      c.curved = true;
    } else if (op === CLOSE_PATH) {
      c.flush(fill, stroke, true, lineWidth);
    } else {
      break; // An opcode this version does not know: stop rather than misread the rest.
    }
  }
  c.flush(fill, stroke, false, lineWidth);
  c.endDrawing();
}

/** Advances the text position over one showText and records where its glyphs went. */
function showText(c: Collector, s: GraphicsState, glyphs: unknown[], op: number): void {
  const size = s.fontSize;
  let advance = 0;
  let count = 0;
  for (const glyph of glyphs) {
    if (typeof glyph === "number") {
      advance -= (glyph * size) / 1000;
      continue;
    }
    const g = glyph as { width?: number; isSpace?: boolean; unicode?: string } | null;
    if (!g) continue;
    const spacing = (g.isSpace ? s.wordSpacing : 0) + s.charSpacing;
    advance += ((g.width ?? 0) * size) / 1000 + spacing * s.fontDirection;
    if (!g.isSpace && g.unicode !== " ") count++;
  }
  const hScale = s.hScale * s.fontDirection;
  const x0 = s.x;
  s.x += advance * hScale;
  if (count === 0 || size === 0) return;
  const invisible = (s.renderMode & 3) === 3 || s.fillAlpha === 0;
  if (invisible) c.invisibleGlyphs += count;
  else c.visibleGlyphs += count;
  const m = s.tm ? multiply(s.m, s.tm) : s.m;
  const base = s.y + s.rise;
  const b = boxUnder(m, x0, base - DESCENT * size, s.x, base + ASCENT * size);
  (invisible ? c.invisible : c.visible).push({ box: b, glyphs: count, op });
  if (!invisible && s.fillWhite && (s.renderMode & 3) === 0) c.white.push({ box: b, glyphs: count, op });
}

function initialState(viewportTransform: readonly number[]): GraphicsState {
  return {
    m: viewportTransform.slice(0, 6),
    lineWidth: 1,
    fillVisible: true,
    strokeVisible: true,
    fillColorVisible: true,
    fillWhite: false,
    strokeColorVisible: true,
    fillAlpha: 1,
    strokeAlpha: 1,
    fontSize: 0,
    fontDirection: 1,
    charSpacing: 0,
    wordSpacing: 0,
    hScale: 1,
    leading: 0,
    rise: 0,
    renderMode: 0,
    tm: null,
    x: 0,
    y: 0,
    lineX: 0,
    lineY: 0,
  };
}

function setFont(s: GraphicsState, size: unknown): void {
  const value = typeof size === "number" ? size : 0;
  s.fontDirection = value < 0 ? -1 : 1;
  s.fontSize = Math.abs(value);
}

function updateVisibility(s: GraphicsState): void {
  s.fillVisible = s.fillColorVisible && s.fillAlpha > 0;
  s.strokeVisible = s.strokeColorVisible && s.strokeAlpha > 0;
}

/**
 * Ruling lines, rectangles, image placements, vector drawings and invisible text of a page's operator list, in
 * model coordinates. `viewportTransform` is `page.getViewport({ scale: 1 }).transform`. Mirrors the state
 * tracking of pdf.js's canvas renderer (save/restore, transforms, forms, groups, the text matrix) without
 * drawing anything; text boxes use a fixed ascent and descent, so they are coarse.
 *
 * @example
 * const page = await doc.getPage(1);
 * const graphics = pageGraphics(await page.getOperatorList(), page.getViewport({ scale: 1 }).transform);
 * const horizontal = graphics.rules.filter((rule) => rule.orientation === "h");
 */
export function pageGraphics(ops: PDFOperatorList, viewportTransform: readonly number[]): PageGraphics {
  const walk = new OperatorWalk(viewportTransform);
  const { fnArray, argsArray } = ops;
  for (let i = 0, n = fnArray.length; i < n; i++) {
    const fn = fnArray[i];
    if (walk.skipsAnnotation(fn)) continue;
    (STEPS[fn] ?? ignore)(walk, argsArray[i] as unknown[] | null, i);
  }
  hideCoveredText(walk.c);
  return collected(walk.c);
}

/** The walk over one operator list: what it collected, the graphics state, and the states saved under it. */
class OperatorWalk {
  readonly c = new Collector();
  s: GraphicsState;
  readonly #saved: GraphicsState[] = [];
  /** Nesting of the annotation being skipped: its appearance is not the page's content. */
  #annotationDepth = 0;

  constructor(viewportTransform: readonly number[]) {
    this.s = initialState(viewportTransform);
  }

  /** Saves the state (q, a form, a group), the copy going on under `matrix` when one is given. */
  save(matrix?: Matrix | null): void {
    this.#saved.push(this.s);
    this.s = { ...this.s };
    if (matrix) this.s.m = multiply(this.s.m, matrix);
  }

  restore(): void {
    this.s = this.#saved.pop() ?? this.s;
  }

  enterAnnotation(): void {
    this.#annotationDepth = 1;
  }

  /** Whether the operator is inside an annotation (counting the annotations nested in it), so skipped. */
  skipsAnnotation(fn: number): boolean {
    if (this.#annotationDepth === 0) return false;
    if (fn === OPS.beginAnnotation) this.#annotationDepth++;
    else if (fn === OPS.endAnnotation) this.#annotationDepth--;
    return true;
  }
}

/** What one operator does to the walk; `index` is its place in the operator list. */
type OperatorStep = (walk: OperatorWalk, args: unknown[] | null, index: number) => void;

/** Saving and restoring the state (q/Q, forms, transparency groups), the CTM, and annotations to skip. */
const STATE_STEPS: Record<number, OperatorStep> = {
  [OPS.save]: (w) => w.save(),
  [OPS.restore]: (w) => w.restore(),
  [OPS.transform]: (w, args) => {
    if (args) w.s.m = multiply(w.s.m, args as number[]);
  },
  [OPS.paintFormXObjectBegin]: (w, args) => w.save(args?.[0] as number[] | null),
  [OPS.beginGroup]: (w, args) => w.save((args?.[0] as { matrix?: number[] } | null)?.matrix),
  [OPS.paintFormXObjectEnd]: (w) => w.restore(),
  [OPS.endGroup]: (w) => w.restore(),
  [OPS.beginAnnotation]: (w) => w.enterAnnotation(),
};

/** Line width, alpha and colours: whether fills and strokes show at all (white or transparent ones do not). */
const PAINT_STATE_STEPS: Record<number, OperatorStep> = {
  [OPS.setLineWidth]: (w, args) => {
    w.s.lineWidth = args?.[0] as number;
  },
  [OPS.setGState]: ({ s }, args) => {
    for (const [key, value] of (args?.[0] as [string, unknown][] | undefined) ?? []) {
      if (key === "LW") s.lineWidth = value as number;
      else if (key === "ca") s.fillAlpha = value as number;
      else if (key === "CA") s.strokeAlpha = value as number;
      else if (key === "Font") setFont(s, (value as unknown[])[1]);
    }
    updateVisibility(s);
  },
  [OPS.setFillRGBColor]: ({ s }, args) => {
    s.fillWhite = isWhite(args?.[0]);
    s.fillColorVisible = !s.fillWhite;
    updateVisibility(s);
  },
  [OPS.setStrokeRGBColor]: ({ s }, args) => {
    s.strokeColorVisible = !isWhite(args?.[0]);
    updateVisibility(s);
  },
  // A pattern or shading: not white.
  [OPS.setFillColorN]: ({ s }) => {
    s.fillColorVisible = true;
    s.fillWhite = false;
    updateVisibility(s);
  },
  [OPS.setStrokeColorN]: ({ s }) => {
    s.strokeColorVisible = true;
    updateVisibility(s);
  },
  [OPS.setFillTransparent]: ({ s }) => {
    s.fillColorVisible = false;
    s.fillWhite = false;
    updateVisibility(s);
  },
  [OPS.setStrokeTransparent]: ({ s }) => {
    s.strokeColorVisible = false;
    updateVisibility(s);
  },
};

/** The text state and the text position: font, spacing, scaling, leading, rise, render mode, matrix, moves. */
const TEXT_STATE_STEPS: Record<number, OperatorStep> = {
  [OPS.beginText]: ({ s }) => {
    s.tm = null;
    s.x = s.y = s.lineX = s.lineY = 0;
  },
  [OPS.setFont]: ({ s }, args) => setFont(s, args?.[1]),
  [OPS.setCharSpacing]: ({ s }, args) => {
    s.charSpacing = args?.[0] as number;
  },
  [OPS.setWordSpacing]: ({ s }, args) => {
    s.wordSpacing = args?.[0] as number;
  },
  [OPS.setHScale]: ({ s }, args) => {
    s.hScale = (args?.[0] as number) / 100;
  },
  [OPS.setLeading]: ({ s }, args) => {
    s.leading = -(args?.[0] as number);
  },
  [OPS.setTextRise]: ({ s }, args) => {
    s.rise = args?.[0] as number;
  },
  [OPS.setTextRenderingMode]: ({ s }, args) => {
    s.renderMode = args?.[0] as number;
  },
  [OPS.setTextMatrix]: ({ s }, args) => {
    s.tm = Array.from(args?.[0] as ArrayLike<number>);
    s.x = s.y = s.lineX = s.lineY = 0;
  },
  [OPS.setLeadingMoveText]: ({ s }, args) => {
    s.leading = args?.[1] as number;
    moveText(s, args?.[0] as number, args?.[1] as number);
  },
  [OPS.moveText]: ({ s }, args) => moveText(s, args?.[0] as number, args?.[1] as number),
  [OPS.nextLine]: ({ s }) => {
    s.lineY += s.leading;
    s.x = s.lineX;
    s.y = s.lineY;
  },
};

/** What paints: paths, text, and images (single, repeated, grouped, masks). */
const PAINT_STEPS: Record<number, OperatorStep> = {
  [OPS.constructPath]: (w, args) => {
    if (args) paintPath(w.c, w.s, args);
  },
  [OPS.showText]: (w, args, index) => {
    if (Array.isArray(args?.[0])) showText(w.c, w.s, args[0] as unknown[], index);
  },
  [OPS.paintImageXObject]: (w, _args, index) => w.c.image(w.s.m, index),
  [OPS.paintInlineImageXObject]: (w, _args, index) => w.c.image(w.s.m, index),
  [OPS.paintImageMaskXObject]: (w, _args, index) => w.c.image(w.s.m, index),
  [OPS.paintSolidColorImageMask]: ({ c, s }) => {
    if (s.fillVisible) {
      c.filledBox(boxUnder(s.m, 0, 0, 1, 1));
      c.grounds.push(boxUnder(s.m, 0, 0, 1, 1));
    }
    c.endDrawing();
  },
  // A shading paints its clip, whose extent this walk does not follow: no text is taken for hidden under it.
  [OPS.shadingFill]: ({ c }) => {
    c.shaded = true;
  },
  [OPS.paintImageXObjectRepeat]: ({ c, s }, args, index) => {
    const [, scaleX, scaleY, positions] = args as [unknown, number, number, ArrayLike<number>];
    for (let k = 0; k + 1 < positions.length; k += 2) {
      c.image(multiply(s.m, [scaleX, 0, 0, scaleY, positions[k], positions[k + 1]]), index);
    }
  },
  [OPS.paintImageMaskXObjectRepeat]: ({ c, s }, args, index) => {
    const [, scaleX, skewX, skewY, scaleY, positions] = args as [
      unknown,
      number,
      number,
      number,
      number,
      ArrayLike<number>,
    ];
    for (let k = 0; k + 1 < positions.length; k += 2) {
      c.image(multiply(s.m, [scaleX, skewX ?? 0, skewY ?? 0, scaleY, positions[k], positions[k + 1]]), index);
    }
  },
  [OPS.paintImageMaskXObjectGroup]: ({ c, s }, args, index) => {
    for (const image of (args?.[0] as { transform: number[] }[] | undefined) ?? []) {
      c.image(multiply(s.m, image.transform), index);
    }
  },
  [OPS.paintInlineImageXObjectGroup]: ({ c, s }, args, index) => {
    for (const entry of (args?.[1] as { transform: number[] }[] | undefined) ?? []) {
      c.image(multiply(s.m, entry.transform), index);
    }
  },
};

/** Every pdf.js operator's step, indexed by its OPS number (a packed array); the others change nothing here. */
const STEPS: OperatorStep[] = Array.from({ length: Math.max(...Object.values(OPS)) + 1 }, () => ignore);
for (const table of [STATE_STEPS, PAINT_STATE_STEPS, TEXT_STATE_STEPS, PAINT_STEPS]) {
  for (const [fn, step] of Object.entries(table)) STEPS[Number(fn)] = step;
}

function ignore(): void {}

/** Moves to the start of the next line, offset (tx, ty) from the start of the current one (Td, TD). */
function moveText(s: GraphicsState, tx: number, ty: number): void {
  s.lineX += tx;
  s.lineY += ty;
  s.x = s.lineX;
  s.y = s.lineY;
}

/** The page's graphics from what the walk collected: rules joined, invisible text pieces joined per line. */
function collected(c: Collector): PageGraphics {
  return {
    rules: joinRules(c.rules),
    rects: c.rects,
    images: c.images,
    imageDraws: c.imageOps.map((op, k) => ({ op, transform: c.imageMatrices[k] })),
    invisibleText: joinLine(c.invisible),
    invisibleGlyphs: c.invisibleGlyphs,
    visibleGlyphs: c.visibleGlyphs,
    drawings: c.drawings,
    polylines: c.polylines,
    outlines: c.outlines,
    lightOutlines: c.lightOutlines,
    hiddenText: c.shaded
      ? []
      : joinLine(
          c.white.filter(
            (piece) =>
              !c.grounds.some((g) => box.intersection(g, piece.box) > 0) &&
              !c.strokeGrounds.some((g) => {
                // A band must meet the word: a word box without area is not grounded by every stroke on the page.
                const covered = box.intersection(g, piece.box);
                return covered > 0 && covered >= box.area(piece.box) / 2;
              }),
          ),
        ),
  };
}

/**
 * Visible text under an image painted after it (a scan laid over its own OCR text) is invisible, when that is
 * most of the page's text. A single covered caption or label is not enough: an image with transparent or white
 * margins can overlap text that shows.
 */
function hideCoveredText(c: Collector): void {
  if (c.images.length === 0 || c.visible.length === 0) return;
  const kept: TextPiece[] = [];
  const hidden: TextPiece[] = [];
  let hiddenGlyphs = 0;
  for (const piece of c.visible) {
    const t = piece.box;
    let covered = false;
    for (let k = 0; k < c.images.length && !covered; k++) {
      const b = c.images[k].box;
      covered =
        c.imageOps[k] > piece.op &&
        t.x1 >= b.x1 - 1 &&
        t.x2 <= b.x2 + 1 &&
        t.y1 >= b.y1 - 1 &&
        t.y2 <= b.y2 + 1;
    }
    if (covered) {
      hidden.push(piece);
      hiddenGlyphs += piece.glyphs;
    } else {
      kept.push(piece);
    }
  }
  if (hiddenGlyphs * 2 < c.visibleGlyphs) return;
  c.visibleGlyphs -= hiddenGlyphs;
  c.invisibleGlyphs += hiddenGlyphs;
  c.visible.length = 0;
  c.visible.push(...kept);
  c.invisible.push(...hidden);
  c.invisible.sort((a, b) => a.op - b.op);
}

/**
 * Joins consecutive pieces of text on one line, as pdf.js's getTextContent joins them into one item: the next
 * piece starts at most 0.6 font sizes after the previous one ends, and not far before it.
 */
function joinLine(pieces: readonly TextPiece[]): Box[] {
  const out: Box[] = [];
  let last: Box | null = null;
  for (const { box: b } of pieces) {
    if (last) {
      const h = Math.min(last.y2 - last.y1, b.y2 - b.y1);
      const overlap = Math.min(last.y2, b.y2) - Math.max(last.y1, b.y1);
      const gap = b.x1 - last.x2;
      if (h > 0 && overlap >= 0.5 * h && gap <= 0.6 * h && gap >= -0.2 * h - (last.x2 - last.x1)) {
        last.x1 = Math.min(last.x1, b.x1);
        last.y1 = Math.min(last.y1, b.y1);
        last.x2 = Math.max(last.x2, b.x2);
        last.y2 = Math.max(last.y2, b.y2);
        continue;
      }
    }
    last = { ...b };
    out.push(last);
  }
  return out;
}

/**
 * Joins rules that continue one another: on the same line (within ALIGN), ends touching or overlapping (within
 * JOIN_GAP). A line drawn in pieces (one per table cell) becomes one rule, a line drawn twice becomes one;
 * a real gap (a spanning cell) stays.
 */
function joinRules(rules: readonly Rule[]): Rule[] {
  const h = rules.filter((r) => r.orientation === "h").sort((a, b) => a.y1 - b.y1 || a.x1 - b.x1);
  const v = rules.filter((r) => r.orientation === "v").sort((a, b) => a.x1 - b.x1 || a.y1 - b.y1);
  return [...joinSorted(h, "h"), ...joinSorted(v, "v")];
}

function joinSorted(sorted: Rule[], orientation: "h" | "v"): Rule[] {
  const out: Rule[] = [];
  // Rules on one line (within ALIGN of the line's first rule), then joined along it.
  let i = 0;
  while (i < sorted.length) {
    const pos = orientation === "h" ? sorted[i].y1 : sorted[i].x1;
    let j = i;
    while (j < sorted.length && (orientation === "h" ? sorted[j].y1 : sorted[j].x1) - pos <= ALIGN) j++;
    const line = sorted.slice(i, j);
    if (line.length > 1) {
      line.sort(orientation === "h" ? (a, b) => a.x1 - b.x1 : (a, b) => a.y1 - b.y1);
    }
    let current: Rule | null = null;
    for (const r of line) {
      if (current) {
        const gap = orientation === "h" ? r.x1 - current.x2 : r.y1 - current.y2;
        if (gap <= JOIN_GAP) {
          if (orientation === "h") current.x2 = Math.max(current.x2, r.x2);
          else current.y2 = Math.max(current.y2, r.y2);
          current.width = Math.max(current.width, r.width);
          continue;
        }
      }
      current = { ...r };
      out.push(current);
    }
    i = j;
  }
  return out;
}

/**
 * Marks runs drawn through by a horizontal rule: the rule crosses the run's middle band (between 35% and 70% of
 * its height from the top, where a strikethrough sits and an underline does not), covers at least 70% of the
 * run's width, and is thin next to the text. Vertical runs are left alone.
 *
 * @example
 * markStrikethrough(geometry.runs, geometry.rules);
 * const kept = geometry.runs.filter((run) => !run.struck);
 */
export function markStrikethrough(runs: TextRun[], rules: readonly Rule[]): void {
  const lines = rules.filter((r) => r.orientation === "h").sort((a, b) => a.y1 - b.y1);
  if (lines.length === 0) return;
  const pieces: TextRun[] = [];
  for (const run of runs) {
    pieces.push(...strikePieces(run, lines));
  }
  runs.splice(0, runs.length, ...pieces);
}

/**
 * A run with the parts drawn through marked: the whole run when a rule covers most of it, else the words a rule
 * covers split off as runs of their own (a struck word inside a line pdf.js joined into one item). Character
 * positions are estimated in proportion to the run's width.
 */
function strikePieces(run: TextRun, lines: readonly Rule[]): TextRun[] {
  if (run.vertical) return [run];
  const { x1, y1, x2, y2 } = run.box;
  const h = y2 - y1;
  const w = x2 - x1;
  if (h <= 0 || w <= 0) return [run];
  const top = y1 + 0.35 * h;
  const bottom = y1 + 0.7 * h;
  // First rule at or below `top`.
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lines[mid].y1 < top) lo = mid + 1;
    else hi = mid;
  }
  const strikes: Rule[] = [];
  for (let k = lo; k < lines.length && lines[k].y1 <= bottom; k++) {
    const r = lines[k];
    const covered = Math.min(r.x2, x2) - Math.max(r.x1, x1);
    if (r.width > 0.35 * h || covered <= 0) continue;
    if (covered >= 0.7 * w) {
      run.struck = true;
      return [run];
    }
    strikes.push(r);
  }
  if (strikes.length === 0) return [run];
  // Words of the run with their estimated extents; a word is struck when a rule covers 70% of it.
  const perChar = w / Math.max(1, run.text.length);
  const words = [...run.text.matchAll(/\S+/g)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    struck: strikes.some((r) => {
      const a = x1 + m.index * perChar;
      const b = x1 + (m.index + m[0].length) * perChar;
      return Math.min(r.x2, b) - Math.max(r.x1, a) >= 0.7 * (b - a);
    }),
  }));
  if (!words.some((word) => word.struck)) return [run];
  // Consecutive words of the same kind become one piece.
  const pieces: TextRun[] = [];
  let from = 0;
  while (from < words.length) {
    let to = from;
    while (to + 1 < words.length && words[to + 1].struck === words[from].struck) to++;
    const start = words[from].start;
    const end = words[to].end;
    pieces.push({
      ...run,
      text: run.text.slice(start, end),
      box: { x1: x1 + start * perChar, y1, x2: x1 + end * perChar, y2 },
      struck: words[from].struck,
    });
    from = to + 1;
  }
  return pieces;
}

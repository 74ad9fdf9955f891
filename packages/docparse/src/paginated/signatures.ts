import type { Box } from "../model.ts";
import { box, type PageGeometry } from "./geometry.ts";

/** Words that announce a signature next to where it is drawn. */
const SIGNATURE_CUE =
  /\b(signature|signed|sign here|signatory|authori[sz]ed by|unterschrift|firma|signé|assinatura)\b/i;

/** Drawings closer than this (points) belong to one stroke group. */
const JOIN = 6;

/** Groups boxes that touch or nearly touch. */
function clusters(boxes: readonly Box[]): Box[] {
  const groups: Box[] = [];
  for (const b of [...boxes].sort((p, q) => p.x1 - q.x1)) {
    const grown = { x1: b.x1 - JOIN, y1: b.y1 - JOIN, x2: b.x2 + JOIN, y2: b.y2 + JOIN };
    const index = groups.findIndex((g) => box.intersection(g, grown) > 0);
    if (index >= 0) groups[index] = box.union([groups[index], b]);
    else groups.push({ ...b });
  }
  return groups;
}

/**
 * Handwritten signatures on a page (parsing_options.signature_detection): a cluster of curved strokes, or a small
 * wide image, that sits on a signature line (a horizontal rule just below it) or beside words such as
 * "Signature" or "Signed". Works on signatures drawn as vectors or embedded as images in a PDF; a signature inside
 * a scanned page is ink among ink and is not found.
 */
export function detectSignatures(page: PageGeometry): Box[] {
  const pageArea = page.width * page.height;
  // Strokes inside a picture are part of the picture.
  const pictures = page.images.map((image) => image.box).filter((b) => box.area(b) >= pageArea * 0.05);
  const strokes = clusters(page.drawings ?? []).filter(
    (c) =>
      box.width(c) >= 30 &&
      box.height(c) >= 8 &&
      box.height(c) <= 90 &&
      !pictures.some((p) => box.intersection(p, c) > box.area(c) * 0.5),
  );
  const scans = page.images
    .map((image) => image.box)
    .filter(
      (b) => box.area(b) < pageArea * 0.05 && box.width(b) >= box.height(b) * 1.5 && box.height(b) <= 120,
    );
  // A cue is a label ("Signature:", "Signed by"), not the word inside running text.
  const cues = page.runs
    .filter((run) => run.text.length <= 40 && SIGNATURE_CUE.test(run.text))
    .map((run) => run.box);
  const onLine = (c: Box) =>
    page.rules.some(
      (rule) =>
        rule.orientation === "h" &&
        rule.y1 >= c.y2 - box.height(c) * 0.5 &&
        rule.y1 <= c.y2 + 15 &&
        box.overlapX(rule, c) >= box.width(c) * 0.5,
    );
  const nearCue = (c: Box) =>
    cues.some(
      (cue) =>
        // Beside it on the same line, or just above or below it.
        (box.verticalOverlap(cue, c) > 0 && Math.abs(cue.x2 - c.x1) < 120) ||
        (Math.min(Math.abs(cue.y1 - c.y2), Math.abs(c.y1 - cue.y2)) < 40 &&
          Math.min(cue.x2, c.x2 + 40) - Math.max(cue.x1, c.x1 - 40) > 0),
    );
  // Strokes on a signature line or by a cue; an image (a logo looks the same) only by a cue.
  return [...strokes.filter((c) => onLine(c) || nearCue(c)), ...scans.filter(nearCue)];
}

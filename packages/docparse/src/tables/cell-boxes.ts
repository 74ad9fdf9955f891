/**
 * Boxes drawn inside the cells of a ruled grid. A frame around a word of a cell (a date marked in a calendar, a
 * figure set off in a form) is no rule of the grid: its sides cut the lattice into slivers of undrawn edges and the
 * grid no longer reads as ruled. A cell box is two vertical rules of the same span joined by a rule of its own width
 * at the top or the bottom (the other side may lie on a rule of the grid), with no rule of the rest of the group
 * crossing it: it lies inside one cell.
 */

import { type Segment, SNAP } from "./rule-segments.ts";
import { gridFrame, ruledShare } from "./ruled-frame.ts";

interface Group {
  hs: Segment[];
  vs: Segment[];
}

/** A rule of the box's own width at height `y`, or undefined. */
function sideAt(hs: readonly Segment[], y: number, x1: number, x2: number): Segment | undefined {
  return hs.find(
    (h) => Math.abs(h.pos - y) <= SNAP && Math.abs(h.a - x1) <= SNAP && Math.abs(h.b - x2) <= SNAP,
  );
}

/** The rules of the boxes drawn inside single cells of a group. */
function cellBoxRules(group: Group): Set<Segment> {
  const found = new Set<Segment>();
  const boxes: { rules: Segment[]; x1: number; x2: number; y1: number; y2: number }[] = [];
  for (const left of group.vs) {
    for (const right of group.vs) {
      if (right.pos <= left.pos + SNAP) continue;
      if (Math.abs(left.a - right.a) > SNAP || Math.abs(left.b - right.b) > SNAP) continue;
      const top = sideAt(group.hs, left.a, left.pos, right.pos);
      const bottom = sideAt(group.hs, left.b, left.pos, right.pos);
      if (!top && !bottom) continue;
      const rules = [left, right, ...(top ? [top] : []), ...(bottom ? [bottom] : [])];
      boxes.push({ rules, x1: left.pos, x2: right.pos, y1: left.a, y2: left.b });
    }
  }
  for (const box of boxes) {
    const own = new Set(box.rules);
    const crossedV = group.vs.some(
      (v) =>
        !own.has(v) &&
        v.pos > box.x1 + SNAP &&
        v.pos < box.x2 - SNAP &&
        v.a < box.y2 - SNAP &&
        v.b > box.y1 + SNAP,
    );
    const crossedH = group.hs.some(
      (h) =>
        !own.has(h) &&
        h.pos > box.y1 + SNAP &&
        h.pos < box.y2 - SNAP &&
        h.a < box.x2 - SNAP &&
        h.b > box.x1 + SNAP,
    );
    if (!crossedV && !crossedH) for (const rule of box.rules) found.add(rule);
  }
  return found;
}

/**
 * The group with the boxes inside its cells taken out, when the group does not read as a ruled grid with them and
 * does without them; otherwise null (the group is read as it is).
 */
export function withoutCellBoxes(group: Group): Group | null {
  const frame = gridFrame(group.hs, group.vs);
  if (frame && ruledShare(frame) >= RULED) return null;
  const boxRules = cellBoxRules(group);
  if (boxRules.size === 0) return null;
  const hs = group.hs.filter((h) => !boxRules.has(h));
  const vs = group.vs.filter((v) => !boxRules.has(v));
  // The rest must still be a grid with inner rules both ways: boxes inside a bare outline are cards, not cells.
  if (hs.length < 3 || vs.length < 3) return null;
  const cleaned = gridFrame(hs, vs);
  return cleaned && ruledShare(cleaned) >= RULED ? { hs, vs } : null;
}

/** The share of drawn edges a ruled grid needs (as ruled.ts asks of a group). */
const RULED = 0.6;

import type { Box } from "../model.ts";

/** Edges this close (points) are one edge: a card drawn twice (a fill and its stroke) is one card. */
const SAME_EDGE = 1;

/** The boxes with those drawn twice (every edge within SAME_EDGE of another box's) left out. */
export function uniqueBoxes(boxes: readonly Box[]): Box[] {
  const kept: Box[] = [];
  for (const b of boxes) {
    const same = kept.some(
      (k) =>
        Math.abs(k.x1 - b.x1) <= SAME_EDGE &&
        Math.abs(k.y1 - b.y1) <= SAME_EDGE &&
        Math.abs(k.x2 - b.x2) <= SAME_EDGE &&
        Math.abs(k.y2 - b.y2) <= SAME_EDGE,
    );
    if (!same) kept.push(b);
  }
  return kept;
}

function holds(outer: Box, inner: Box): boolean {
  return (
    inner.x1 >= outer.x1 - SAME_EDGE &&
    inner.y1 >= outer.y1 - SAME_EDGE &&
    inner.x2 <= outer.x2 + SAME_EDGE &&
    inner.y2 <= outer.y2 + SAME_EDGE
  );
}

const area = (b: Box) => (b.x2 - b.x1) * (b.y2 - b.y1);

/**
 * Each card's parent: the smallest other card that holds it whole (a note box drawn inside the frame of a
 * manual's page), or null for a card on the page itself. A nested card is read in its parent's place, among the
 * parent's text, not after the parent as a card of the page.
 */
export function cardParents(cards: readonly Box[]): Map<Box, Box | null> {
  const parents = new Map<Box, Box | null>();
  for (const card of cards) {
    let parent: Box | null = null;
    for (const other of cards) {
      if (other === card || area(other) <= area(card) || !holds(other, card)) continue;
      if (parent === null || area(other) < area(parent)) parent = other;
    }
    parents.set(card, parent);
  }
  return parents;
}

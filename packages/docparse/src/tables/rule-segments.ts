/**
 * Ruling lines as segments: a page's rules (strokes and the edges of fills) joined where they are collinear, then
 * clustered into distinct line positions and into groups that touch. Every ruled-table rule measures against
 * these segments (how much of an edge a rule covers).
 */
import type { Rule } from "../paginated/geometry.ts";

/** Rules closer than this are one line; segments of one line with a smaller gap are one segment. */
export const SNAP = 2;
const JOIN_GAP = 3;
const LINE_GAP = 4;
/** How much of a lattice edge a rule must cover to separate the two cells. */
export const EDGE_COVER = 0.6;

/** A merged ruling line: `pos` is its y (horizontal) or x (vertical), [a, b] its extent along the other axis. */
export interface Segment {
  pos: number;
  a: number;
  b: number;
  width: number;
}

/** Collinear rules joined: positions within SNAP are one line, pieces with gaps under JOIN_GAP one segment. */
export function mergeSegments(rules: readonly Rule[], orientation: "h" | "v"): Segment[] {
  const raw: Segment[] = [];
  for (const r of rules) {
    if (r.orientation !== orientation) continue;
    raw.push(
      orientation === "h"
        ? { pos: (r.y1 + r.y2) / 2, a: Math.min(r.x1, r.x2), b: Math.max(r.x1, r.x2), width: r.width }
        : { pos: (r.x1 + r.x2) / 2, a: Math.min(r.y1, r.y2), b: Math.max(r.y1, r.y2), width: r.width },
    );
  }
  raw.sort((p, q) => p.pos - q.pos);
  const merged: Segment[] = [];
  let i = 0;
  while (i < raw.length) {
    let j = i + 1;
    while (j < raw.length && raw[j].pos - raw[j - 1].pos <= SNAP) j++;
    const group = raw.slice(i, j).sort((p, q) => p.a - q.a);
    let current: Segment | null = null;
    let count = 0;
    let posSum = 0;
    const flush = () => {
      if (current && current.b - current.a >= 2) merged.push({ ...current, pos: posSum / count });
    };
    for (const s of group) {
      if (current && s.a <= current.b + JOIN_GAP) {
        current.b = Math.max(current.b, s.b);
        current.width = Math.max(current.width, s.width);
        count++;
        posSum += s.pos;
        continue;
      }
      flush();
      current = { ...s };
      count = 1;
      posSum = s.pos;
    }
    flush();
    i = j;
  }
  return merged;
}

/** Groups of rules touching each other (horizontal and vertical segments that cross or meet within SNAP). */
export function connectedGroups(
  hs: readonly Segment[],
  vs: readonly Segment[],
): { hs: Segment[]; vs: Segment[] }[] {
  const parent = Array.from({ length: hs.length + vs.length }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  const byX = vs.map((v, i) => ({ v, i })).sort((p, q) => p.v.pos - q.v.pos);
  const xs = byX.map((e) => e.v.pos);
  hs.forEach((h, hi) => {
    for (let k = lowerBound(xs, h.a - SNAP); k < byX.length && byX[k].v.pos <= h.b + SNAP; k++) {
      const { v, i } = byX[k];
      if (h.pos >= v.a - SNAP && h.pos <= v.b + SNAP) parent[find(hi)] = find(hs.length + i);
    }
  });
  const groups = new Map<number, { hs: Segment[]; vs: Segment[] }>();
  const group = (i: number) => {
    const root = find(i);
    let g = groups.get(root);
    if (!g) {
      g = { hs: [], vs: [] };
      groups.set(root, g);
    }
    return g;
  };
  hs.forEach((h, i) => {
    group(i).hs.push(h);
  });
  vs.forEach((v, i) => {
    group(hs.length + i).vs.push(v);
  });
  return [...groups.values()];
}

function lowerBound(sorted: readonly number[], v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Distinct line positions: the segments clustered by position, each cluster with its segments. Lines closer than
 * LINE_GAP (a double rule, a cell's shading beside its border) are one: no row or column is that thin.
 */
export function lines(segments: readonly Segment[]): { pos: number; segments: Segment[] }[] {
  const sorted = [...segments].sort((p, q) => p.pos - q.pos);
  const out: { pos: number; segments: Segment[] }[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.pos - last.segments[last.segments.length - 1].pos < LINE_GAP) last.segments.push(s);
    else out.push({ pos: s.pos, segments: [s] });
  }
  for (const line of out) line.pos = line.segments.reduce((sum, s) => sum + s.pos, 0) / line.segments.length;
  return out;
}

/** The share of [a, b] covered by segments. */
export function covered(segments: readonly Segment[], a: number, b: number): number {
  if (b <= a) return 0;
  let total = 0;
  for (const s of segments) total += Math.max(0, Math.min(b, s.b) - Math.max(a, s.a));
  return total / (b - a);
}

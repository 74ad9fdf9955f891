/**
 * Field-level scoring of extracted data against expected data. Each leaf (JSON pointer to a scalar, array
 * elements included: `/line_items/2/amount`) is one field. A predicted non-null leaf equal to the expected one is a
 * true positive; a predicted non-null leaf that differs from it (or where null was expected) is a false positive;
 * an expected non-null leaf not predicted equal is a false negative. So a wrong value costs both precision and
 * recall, and a null where a value was expected costs recall only.
 */

export interface FieldCounts {
  tp: number;
  fp: number;
  fn: number;
}

export interface FieldMiss {
  field: string;
  expected: unknown;
  predicted: unknown;
}

/** Every scalar leaf of a value by JSON pointer; an empty array or a null object is one null leaf. */
export function leaves(value: unknown, pointer = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (node: unknown, at: string) => {
    if (Array.isArray(node)) {
      node.forEach((element, index) => {
        walk(element, `${at}/${index}`);
      });
    } else if (node !== null && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
    } else out.set(at, node ?? null);
  };
  walk(value, pointer);
  return out;
}

function normalize(value: unknown): unknown {
  if (typeof value === "string") return value.trim().replace(/\s+/g, " ").toLowerCase();
  if (typeof value === "number") return Math.round(value * 100) / 100;
  return value;
}

export function sameValue(expected: unknown, predicted: unknown): boolean {
  return normalize(expected) === normalize(predicted);
}

/** Counts of one document, and the fields that were wrong or missing. */
export function scoreFields(expected: unknown, predicted: unknown): FieldCounts & { misses: FieldMiss[] } {
  const want = leaves(expected);
  const got = leaves(predicted);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const misses: FieldMiss[] = [];
  for (const field of new Set([...want.keys(), ...got.keys()])) {
    const e = want.get(field) ?? null;
    const p = got.get(field) ?? null;
    if (p !== null && e !== null && sameValue(e, p)) tp++;
    else {
      if (p !== null) fp++;
      if (e !== null) fn++;
      if (p !== null || e !== null) misses.push({ field, expected: e, predicted: p });
    }
  }
  return { tp, fp, fn, misses };
}

export function precision(counts: FieldCounts): number {
  return counts.tp + counts.fp === 0 ? 1 : counts.tp / (counts.tp + counts.fp);
}

export function recall(counts: FieldCounts): number {
  return counts.tp + counts.fn === 0 ? 1 : counts.tp / (counts.tp + counts.fn);
}

export function addCounts(into: FieldCounts, counts: FieldCounts): void {
  into.tp += counts.tp;
  into.fp += counts.fp;
  into.fn += counts.fn;
}

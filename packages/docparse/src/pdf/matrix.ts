/**
 * 2D affine matrices as PDF writes them, `[a, b, c, d, e, f]`: a point (x, y) goes to
 * (a·x + c·y + e, b·x + d·y + f). The text pass, the operator-list pass and annotation appearances all place
 * what they read through these; hot loops over a path's points inline `apply` rather than allocate its pair.
 */

export type Matrix = readonly number[];

/** a · b: b applied first, then a (PDF's row-vector convention, as pdf.js composes them). */
export function multiply(a: Matrix, b: Matrix): number[] {
  return [
    a[0] * b[0] + a[2] * b[1],
    a[1] * b[0] + a[3] * b[1],
    a[0] * b[2] + a[2] * b[3],
    a[1] * b[2] + a[3] * b[3],
    a[0] * b[4] + a[2] * b[5] + a[4],
    a[1] * b[4] + a[3] * b[5] + a[5],
  ];
}

/** The point (x, y) under `m`. */
export function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** The inverse of `m` (not defined for a singular matrix: callers pass a viewport's). */
export function inverse(m: Matrix): number[] {
  const det = m[0] * m[3] - m[1] * m[2];
  return [
    m[3] / det,
    -m[1] / det,
    -m[2] / det,
    m[0] / det,
    (m[2] * m[5] - m[3] * m[4]) / det,
    (m[1] * m[4] - m[0] * m[5]) / det,
  ];
}

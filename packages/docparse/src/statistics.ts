/**
 * Summary figures of lists of numbers, for the layout rules that measure a page by its usual sizes and gaps: one
 * median for every rule, so that the same list always gives the same figure.
 */

/**
 * The median of a list of numbers (for an even count the upper of the two middle values: a value the list
 * holds), or `empty` when the list is empty. The list itself is left unsorted.
 *
 * @example
 * median([3, 1, 2]); // 2
 * median([4, 1, 3, 2]); // 3
 * median([], 10); // 10
 */
export function median(values: readonly number[], empty = 0): number {
  if (values.length === 0) return empty;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/**
 * The time limit of one page's OCR, counted in the CPU time its programs (tesseract processes) use rather than in
 * wall time. On a machine loaded beyond its cores a page's programs wait for a core most of the time: a limit in
 * wall time then stopped pages that had done little work, and they came out empty. Counted in CPU time, the limit
 * stops only a page that really costs too much. A limit in wall time, several times longer, still ends a page
 * whose time goes elsewhere (our own passes over its image, a program that waits without working).
 */

/** The wall-time limit is this many times the CPU-time limit. */
export const WALL_LIMIT_FACTOR = 5;

/** CPU time left to one page's programs; aborts its signal (a TimeoutError) once it is spent. */
export class CpuBudget {
  readonly #controller = new AbortController();
  #leftMs: number;

  constructor(limitMs: number) {
    this.#leftMs = limitMs;
  }

  /** Aborted with a TimeoutError when the budget is spent. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** What the next program may still use, in milliseconds. */
  get leftMs(): number {
    return Math.max(0, this.#leftMs);
  }

  /** Counts a program's CPU time (or, where it could not be measured, its wall time) against the budget. */
  charge(ms: number): void {
    this.#leftMs -= ms;
    if (this.#leftMs <= 0 && !this.#controller.signal.aborted) {
      this.#controller.abort(new DOMException("the page's OCR used its CPU time", "TimeoutError"));
    }
  }
}

/**
 * A page's budget and the signal its passes watch: aborted by the caller's signal, by the budget once spent, or
 * by the wall-time limit (WALL_LIMIT_FACTOR times the budget), whichever comes first.
 */
export function pageBudget(
  limitMs: number,
  caller?: AbortSignal,
): { budget: CpuBudget; signal: AbortSignal } {
  const budget = new CpuBudget(limitMs);
  const signals = [budget.signal, AbortSignal.timeout(limitMs * WALL_LIMIT_FACTOR)];
  if (caller) signals.push(caller);
  return { budget, signal: AbortSignal.any(signals) };
}

/**
 * One edit of pdf.js's worker source, as worker-patch.ts applies them (its own and actual-text.ts's): `find` must
 * occur exactly once; it is replaced by `replace`. A file of its own so that both import it without a cycle.
 */
export interface WorkerEdit {
  /** What the edit changes and why, for whoever checks it against a new pdf.js. */
  why: string;
  find: string;
  replace: string;
}

import type { TextRun } from "./geometry.ts";

/**
 * Letters of a logo set on several baselines (TeX's `LaTeX`, `XeLaTeX`: a small capital raised, an `E` lowered,
 * each kerned into its neighbours) are one word, though the step of baseline between them reads as a word space
 * wherever their boxes do not quite meet (pdf.js measures a letter by its advance, not its ink). A capital
 * closing `previous`, a capital opening `run`, one of the two a lone letter or two, on baselines apart, at most
 * a quarter of the smaller size apart: no space. Text spaced letter by letter on one baseline is not this.
 */
export function logoLetters(previous: TextRun, run: TextRun, gap: number, shifted: boolean): boolean {
  if (!shifted) return false;
  const size = Math.min(previous.fontSize, run.fontSize);
  if (gap > size * 0.25) return false;
  const before = previous.text.trim();
  const after = run.text.trim();
  if (!/\p{Lu}$/u.test(before) || !/^\p{Lu}/u.test(after)) return false;
  return /^\p{Lu}{1,2}$/u.test(before) || /^\p{Lu}{1,2}$/u.test(after);
}

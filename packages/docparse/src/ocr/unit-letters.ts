import type { OcrRun } from "./ocr-page.ts";

/**
 * The pound's sign `lb` read `Ib`. Tesseract often reads a lowercase l as a capital I in a sans-serif face, where
 * the two glyphs are one bar: `Weight: 165.0 Ib`. A word `Ib` or `Ibs` standing right after a figure on its line is
 * the unit `lb`, `lbs`, on a page read in a language whose words include no `Ib` (English, French, German,
 * Spanish, Italian, Portuguese, Dutch: not Danish or Norwegian, where Ib is a given name). Any other `Ib` stays.
 */

/** Tesseract's codes of the languages the rule reads in. */
const LANGUAGES = new Set(["eng", "fra", "deu", "spa", "ita", "por", "nld"]);
/** Ems: the unit stands at most this far after its figure. */
const NEAR = 1.5;

/** `runs` (one OCR page's words, in reading order) with `Ib` after a figure read `lb`. */
export function withUnitLetters(runs: readonly OcrRun[], language: string): OcrRun[] {
  if (!language.split("+").every((code) => LANGUAGES.has(code))) return [...runs];
  return runs.map((run, i) => {
    const unit = /^I(bs?)([.,;)]?)$/.exec(run.text);
    const figure = runs[i - 1];
    if (!unit || !figure || figure.lineId !== run.lineId || !/\d$/.test(figure.text)) return run;
    if (run.box.x1 - figure.box.x2 > NEAR * run.fontSize) return run;
    return { ...run, text: `l${unit[1]}${unit[2]}` };
  });
}

/**
 * Text of TeX's eurosym fonts (`feymr10`, `feybr10`, `feymo10`, …), which draw only euro signs: the official
 * one at `e`, the generic ones at `A`, `B`, `C`. Without a ToUnicode a reader gets the letter of the code, and
 * `300 €` reads `300 e`; every glyph of these fonts is read as `€`.
 */
const EUROSYM = /^(?:TeX-)?fey[a-z]{1,3}\d*$/i;

export function euroFontText(fontName: string, text: string): string {
  return EUROSYM.test(fontName) ? text.replace(/\S/gu, "€") : text;
}

import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList } from "pdfjs-dist/types/src/display/api.js";

/**
 * Right-to-left words whose ligatures pdf.js reverses. Arabic is drawn in visual order, and pdf.js reads a
 * right-to-left text item by reversing its characters; a glyph that stands for several characters (the lam-alef
 * ligature, mapped to "لا") is reversed with them, so "الإنتاجية" reads "اإلنتاجية". The operator list still has
 * each glyph with its characters: reversing a word glyph by glyph gives it right.
 */

const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

interface Glyph {
  unicode: string;
  isSpace?: boolean;
}

/**
 * Each word drawn with a multi-character glyph in right-to-left script, as pdf.js's reversal spells it, mapped
 * to its spelling with every glyph's characters kept in order. A word can be cut between two text items (a word
 * drawn in two pieces: "ک" ending one, "لا ا" starting the next), so pieces of two glyphs count too; a single
 * glyph does not. A reversed spelling that some word of the page really has (بال beside the reversed بلا) is
 * ambiguous and left alone: the map must never break a word that was right.
 */
export function rtlLigatureWords(ops: PDFOperatorList): Map<string, string> {
  const words = new Map<string, string>();
  // Most pages have no such glyph: their words are not spelled out at all.
  if (!hasRtlLigature(ops)) return words;
  const spelled = new Set<string>();
  const add = (word: Glyph[]) => {
    const right = word
      .map((g) => g.unicode)
      .reverse()
      .join("");
    for (const token of right.split(/\s+/)) spelled.add(token);
    if (word.length < 2 || !word.some((g) => [...g.unicode].length > 1 && RTL.test(g.unicode))) return;
    const wrong = [...word.map((g) => g.unicode).join("")].reverse().join("");
    // A glyph may carry a space with its word ("حَبيبي " on the word's last glyph, its others mapped to nothing):
    // the text items are then respelled token by token, each pair the same letters in another order.
    const wrongTokens = wrong.split(/\s+/).filter(Boolean);
    const rightTokens = right.split(/\s+/).filter(Boolean);
    if (wrongTokens.length !== rightTokens.length) return;
    wrongTokens.forEach((token, i) => {
      const respelling = rightTokens[i];
      if (token !== respelling && sameLetters(token, respelling)) words.set(token, respelling);
    });
  };
  for (let i = 0; i < ops.fnArray.length; i++) {
    if (ops.fnArray[i] !== OPS.showText) continue;
    const glyphs = ops.argsArray[i]?.[0];
    if (!Array.isArray(glyphs)) continue;
    let word: Glyph[] = [];
    for (const glyph of glyphs) {
      // Numbers are kerning; a glyph without characters (a missing one) ends nothing.
      if (glyph === null || typeof glyph !== "object" || typeof glyph.unicode !== "string") continue;
      if (glyph.isSpace || /^\s+$/.test(glyph.unicode)) {
        add(word);
        word = [];
      } else word.push(glyph as Glyph);
    }
    add(word);
  }
  for (const wrong of words.keys()) if (spelled.has(wrong)) words.delete(wrong);
  return words;
}

/** Whether some glyph the page shows stands for several characters of a right-to-left script. */
function hasRtlLigature(ops: PDFOperatorList): boolean {
  for (let i = 0; i < ops.fnArray.length; i++) {
    if (ops.fnArray[i] !== OPS.showText) continue;
    const glyphs = ops.argsArray[i]?.[0];
    if (!Array.isArray(glyphs)) continue;
    for (const glyph of glyphs) {
      const unicode = glyph?.unicode;
      if (typeof unicode === "string" && unicode.length > 1 && RTL.test(unicode)) return true;
    }
  }
  return false;
}

/** Whether two spellings have the same characters, each as many times. */
function sameLetters(a: string, b: string): boolean {
  return [...a].sort().join("") === [...b].sort().join("");
}

/** A text item's text with each of `words` (whole words between spaces) spelled as the map says. */
export function respelled(text: string, words: ReadonlyMap<string, string>): string {
  if (words.size === 0) return text;
  return text
    .split(/(\s+)/)
    .map((token) => words.get(token) ?? token)
    .join("");
}

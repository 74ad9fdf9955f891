/**
 * Text of the Symbol font read in its private-use codes. Word and other Windows programs embed Symbol as a
 * "symbol" TrueType font whose glyphs sit at U+F020–U+F0FF, and write a ToUnicode that maps them there: a
 * reader gets U+F0B1 where the page shows ±, U+F061 for α. The code's low byte is Symbol's own encoding, so each
 * such character is read as the character that encoding stands for. Only for a font named Symbol: other
 * symbol fonts (Wingdings, MT Extra) put other pictures at the same codes.
 */

/** Symbol's encoding from 0x20: the characters at 0x20–0x7E and at 0xA1–0xFE ("" where it draws a piece of a
 * bracket or an arrow's extender rather than a character). */
const LOW = " !∀#∃%&∋()∗+,−./0123456789:;<=>?≅ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ[∴]⊥_‾αβχδεφγηιϕκλμνοπθρστυϖωξψζ{|}∼";
const HIGH = [
  "ϒ",
  "′",
  "≤",
  "⁄",
  "∞",
  "ƒ",
  "♣",
  "♦",
  "♥",
  "♠",
  "↔",
  "←",
  "↑",
  "→",
  "↓",
  "°",
  "±",
  "″",
  "≥",
  "×",
  "∝",
  "∂",
  "•",
  "÷",
  "≠",
  "≡",
  "≈",
  "…",
  "",
  "",
  "↵",
  "ℵ",
  "ℑ",
  "ℜ",
  "℘",
  "⊗",
  "⊕",
  "∅",
  "∩",
  "∪",
  "⊃",
  "⊇",
  "⊄",
  "⊂",
  "⊆",
  "∈",
  "∉",
  "∠",
  "∇",
  "®",
  "©",
  "™",
  "∏",
  "√",
  "⋅",
  "¬",
  "∧",
  "∨",
  "⇔",
  "⇐",
  "⇑",
  "⇒",
  "⇓",
  "◊",
  "〈",
  "®",
  "©",
  "™",
  "∑",
];

/** The character Symbol's code `code` (0x20–0xFF) stands for, or null for none (a bracket piece, an unused code). */
function symbolChar(code: number): string | null {
  if (code >= 0x20 && code <= 0x7e) return [...LOW][code - 0x20] ?? null;
  if (code >= 0xa1 && code < 0xa1 + HIGH.length) return HIGH[code - 0xa1] || null;
  if (code === 0xf1) return "〉";
  if (code === 0xf2) return "∫";
  return null;
}

/** Whether a font (its name without the subset prefix) is Symbol: `Symbol`, `SymbolMT`, `Symbol,Bold`. */
export function isSymbolFont(fontName: string): boolean {
  return /^symbol(?:mt)?(?:[,-].*)?$/i.test(fontName);
}

/** A run's text with Symbol's private-use codes read as their characters, when its font is Symbol. */
export function symbolFontText(fontName: string, text: string): string {
  if (!isSymbolFont(fontName) || !/[\uF020-\uF0FF]/.test(text)) return text;
  return text.replace(/[\uF020-\uF0FF]/g, (c) => symbolChar((c.codePointAt(0) ?? 0) - 0xf000) ?? c);
}

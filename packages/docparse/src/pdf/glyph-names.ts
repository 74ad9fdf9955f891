import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList, PDFPageProxy } from "pdfjs-dist/types/src/display/api.js";

/**
 * Ligature glyphs a font's ToUnicode reads as one letter or as nothing. A font whose /Differences names a glyph
 * `fi`, `f_i`, `T_h` or `uni00540068` may map its code to `i`, `h` or nothing in its ToUnicode (a broken subset
 * writer), and "The definition" then reads "he deinition" (pdftotext reads it so too). The glyph's name says
 * what it draws, by the Adobe Glyph List's conventions; this reads it there.
 */

/** The standard ligature names, spelled out. */
const LIGATURE_NAMES: Record<string, string> = {
  ff: "ff",
  fi: "fi",
  fl: "fl",
  ffi: "ffi",
  ffl: "ffl",
  st: "st",
};

/** One component of a glyph name (between underscores) as text, or null when its name is not one read here. */
function componentText(part: string): string | null {
  if (/^[A-Za-z]$/.test(part)) return part;
  if (part in LIGATURE_NAMES) return LIGATURE_NAMES[part];
  const uni = /^uni((?:[0-9A-F]{4})+)$/.exec(part);
  if (uni) {
    const codes = uni[1].match(/.{4}/g) ?? [];
    // Surrogates are not characters of their own.
    if (codes.some((c) => Number.parseInt(c, 16) >= 0xd800 && Number.parseInt(c, 16) <= 0xdfff)) return null;
    return String.fromCodePoint(...codes.map((c) => Number.parseInt(c, 16)));
  }
  const u = /^u([0-9A-F]{4,6})$/.exec(part);
  if (u) {
    const code = Number.parseInt(u[1], 16);
    return code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : null;
  }
  return null;
}

/**
 * The characters a glyph name stands for when it is a ligature (two characters or more): `f_f_i` → `ffi`,
 * `T_h` → `Th`, `fl` → `fl`, `uni00660069` → `fi`; a variant's suffix (`f_i.alt`) is ignored. Null otherwise.
 */
export function ligatureText(name: string): string | null {
  const base = name.split(".")[0];
  if (base === "") return null;
  const parts = base.split("_").map(componentText);
  if (parts.some((p) => p === null)) return null;
  const text = parts.join("");
  return [...text].length >= 2 ? text : null;
}

/** What the main thread sees of a font with pdf.js's `fontExtraProperties`. */
interface FontExtra {
  differences?: (string | undefined)[];
}

interface Glyph {
  unicode: string;
  originalCharCode?: number;
}

/** A glyph drawn in a font, and the characters it stands for when its ToUnicode reads a ligature short. */
export interface Drawn {
  chars: string[];
  fix?: string;
}

/** A glyph whose characters fall short of its ligature name's: the name's characters, else undefined. */
function repair(glyph: Glyph, differences: FontExtra["differences"]): string | undefined {
  const name = typeof glyph.originalCharCode === "number" ? differences?.[glyph.originalCharCode] : undefined;
  if (typeof name !== "string") return undefined;
  const text = ligatureText(name);
  if (text === null) return undefined;
  const read = glyph.unicode.normalize("NFKC");
  return read !== text && [...read].length < [...text].length ? text : undefined;
}

/**
 * Per font (pdf.js's loaded name), the glyphs of the page in drawing order, for the fonts that draw a ligature
 * read short; empty when no font does (the usual page).
 */
export function shortLigatures(page: PDFPageProxy, ops: PDFOperatorList): Map<string, Drawn[]> {
  const fonts = new Map<string, { drawn: Drawn[]; fixes: number }>();
  const differences = new Map<string, FontExtra["differences"]>();
  let font = "";
  for (let i = 0; i < ops.fnArray.length; i++) {
    if (ops.fnArray[i] === OPS.setFont) {
      font = String(ops.argsArray[i]?.[0] ?? "");
      if (!differences.has(font)) {
        let extra: FontExtra | null = null;
        try {
          extra = page.commonObjs.get(font) as FontExtra | null;
        } catch {
          // A font that failed to load: nothing to read its glyph names from.
        }
        const names = extra?.differences;
        differences.set(font, Array.isArray(names) && names.length > 0 ? names : undefined);
      }
    }
    if (ops.fnArray[i] !== OPS.showText) continue;
    const glyphs = ops.argsArray[i]?.[0];
    // Only a font with /Differences names its glyphs: another reads no ligature short.
    const names = differences.get(font);
    if (!Array.isArray(glyphs) || names === undefined) continue;
    const stats = fonts.get(font) ?? { drawn: [], fixes: 0 };
    fonts.set(font, stats);
    for (const glyph of glyphs) {
      // Numbers are kerning.
      if (glyph === null || typeof glyph !== "object" || typeof glyph.unicode !== "string") continue;
      const fix = repair(glyph as Glyph, names);
      // Spaces are left out: the text content adds and drops them on its own.
      const chars = [...glyph.unicode].filter((c) => !/\s/.test(c));
      if (fix !== undefined) stats.fixes++;
      if (chars.length > 0 || fix !== undefined)
        stats.drawn.push({ chars, ...(fix === undefined ? {} : { fix }) });
    }
  }
  const out = new Map<string, Drawn[]>();
  for (const [name, stats] of fonts) if (stats.fixes > 0) out.set(name, stats.drawn);
  return out;
}

interface TextItemLike {
  str: string;
  fontName: string;
}

/**
 * Puts the characters of ligatures read short back into the text items, which pdf.js draws from the same glyphs
 * in the same order: each font's items are walked character by character along its glyphs. Where the two part
 * (text the glyphs do not account for), that font's later items are left as they are.
 */
export function respellLigatures(items: readonly TextItemLike[], glyphs: ReadonlyMap<string, Drawn[]>): void {
  if (glyphs.size === 0) return;
  const at = new Map<string, { glyph: number; char: number; lost: boolean }>();
  for (const item of items) {
    const drawn = glyphs.get(item.fontName);
    if (!drawn) continue;
    const pos = at.get(item.fontName) ?? { glyph: 0, char: 0, lost: false };
    at.set(item.fontName, pos);
    if (pos.lost) continue;
    let out = "";
    for (const c of item.str) {
      if (/\s/.test(c)) {
        out += c;
        continue;
      }
      // Glyphs read as nothing come before this character.
      while (pos.glyph < drawn.length && drawn[pos.glyph].chars.length === 0)
        out += drawn[pos.glyph++].fix ?? "";
      const glyph = drawn[pos.glyph];
      if (!glyph || glyph.chars[pos.char] !== c) {
        pos.lost = true;
        break;
      }
      if (glyph.fix === undefined) out += c;
      else if (pos.char === 0) out += glyph.fix;
      if (++pos.char === glyph.chars.length) {
        pos.glyph++;
        pos.char = 0;
      }
    }
    if (!pos.lost) item.str = out;
  }
}

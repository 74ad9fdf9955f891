import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import { LETTER_SCRIPTS, latinLanguage, refineWithinScript } from "./languages.ts";
import { tesseractAvailable, tesseractInstallation } from "./tesseract.ts";

/**
 * The language text outside a digital PDF's text layer (words in images, outlined glyphs: ocr/crop-queue.ts) is
 * read in: the languages the request asks for, else the one the text layer is written in, when Tesseract has it.
 * A crop holds too little text to tell its own language, and a document's images mostly speak its language.
 */

/** The text layer is sampled on its first pages until it holds this many characters. */
const SAMPLE_CHARS = 600;
const SAMPLE_PAGES = 2;
/** Fewer letters than this tell no language; the document's /Lang is taken then. */
const MIN_LETTERS = 40;

/** ISO 639-1 codes of a /Lang entry (`fr-FR`) and the Tesseract language of each. */
const ISO_LANGUAGES: Record<string, string> = {
  en: "eng",
  de: "deu",
  fr: "fra",
  es: "spa",
  pt: "por",
  it: "ita",
  nl: "nld",
  pl: "pol",
  tr: "tur",
  cs: "ces",
  ro: "ron",
  hu: "hun",
  sv: "swe",
  da: "dan",
  no: "nor",
  nb: "nor",
  fi: "fin",
  id: "ind",
  ms: "msa",
  vi: "vie",
  ru: "rus",
  uk: "ukr",
  el: "ell",
  ar: "ara",
  fa: "fas",
  ur: "urd",
  he: "heb",
  hi: "hin",
  bn: "ben",
  ta: "tam",
  th: "tha",
  zh: "chi_sim",
  ja: "jpn",
  ko: "kor",
};

/**
 * The Tesseract language of a sample of a text layer (and the document's /Lang, or null): the script most of its
 * letters are in, and within Latin script the language whose common words it uses (languages.ts). A language of
 * another script is read with English too, for the Latin words (names, brands) its images carry.
 *
 * @example
 * textLanguage("Le comité s'est réuni mardi matin pour examiner le budget de la bibliothèque", null) // "fra"
 */
export function textLanguage(text: string, lang: string | null): string {
  const letters = [...text].filter((c) => /\p{L}/u.test(c));
  let code: string | null = null;
  if (letters.length >= MIN_LETTERS) {
    const latin = letters.filter((c) => /\p{Script=Latin}/u.test(c)).length;
    const counts = new Map<string, number>();
    for (const [script, language] of LETTER_SCRIPTS) {
      counts.set(language, (counts.get(language) ?? 0) + letters.filter((c) => script.test(c)).length);
    }
    // Kana beside kanji is Japanese: Han letters count for it.
    const kana = counts.get("jpn") ?? 0;
    if (kana > 0) counts.set("jpn", kana + (counts.get("chi_sim") ?? 0));
    let best = { language: "eng", count: 0 };
    for (const [language, count] of counts) if (count > best.count) best = { language, count };
    if (best.count > latin) code = refineWithinScript(best.language, text) ?? best.language;
    else code = latinLanguage(text);
  } else if (lang) {
    code = ISO_LANGUAGES[lang.toLowerCase().split(/[-_]/)[0]] ?? null;
  }
  if (code === null) return "eng";
  const latinScript =
    code === "eng" ||
    /^(deu|fra|spa|por|ita|nld|pol|tur|ces|ron|hun|swe|dan|nor|fin|ind|msa|vie)$/.test(code);
  return latinScript ? code : `${code}+eng`;
}

/**
 * The language a PDF's crops are read in: `asked` (parsing_options.ocr_languages) when given, else the language of
 * its text layer's first pages when Tesseract has its data, else English.
 */
export async function cropLanguage(doc: PDFDocumentProxy, asked: readonly string[]): Promise<string> {
  if (asked.length > 0) return asked.join("+");
  const installed = (await tesseractAvailable())
    ? ((await tesseractInstallation())?.languages ?? [])
    : ["eng"];
  let text = "";
  let lang: string | null = null;
  try {
    for (let n = 1; n <= Math.min(SAMPLE_PAGES, doc.numPages) && text.length < SAMPLE_CHARS; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      lang ??= content.lang;
      for (const item of content.items) if ("str" in item) text += `${item.str} `;
    }
  } catch {
    return "eng";
  }
  const language = textLanguage(text, lang);
  return language.split("+").every((code) => installed.includes(code)) ? language : "eng";
}

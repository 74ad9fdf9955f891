/**
 * Which Tesseract languages read a page: the script Tesseract's OSD names, then the languages of that script,
 * refined by letters and common words only one language of the script has. Pure functions; the passes that use
 * them are in detect-language.ts.
 */

/** OSD's script names (tesseract's `Script:` line) and the languages that read them, the likeliest first. */
const SCRIPT_LANGUAGES: Record<string, string[]> = {
  Latin: ["eng"],
  Cyrillic: ["rus"],
  Greek: ["ell"],
  Han: ["chi_sim"],
  Japanese: ["jpn"],
  Katakana: ["jpn"],
  Hiragana: ["jpn"],
  Korean: ["kor"],
  Hangul: ["kor"],
  Arabic: ["ara"],
  Hebrew: ["heb"],
  Devanagari: ["hin"],
  Bengali: ["ben"],
  Tamil: ["tam"],
  Thai: ["tha"],
};

/**
 * The letters of each non-Latin script of SCRIPT_LANGUAGES that Unicode names the same way (`\p{Script=Han}`),
 * with the first language that reads it. OSD's "Japanese" and "Korean" are no Unicode scripts: their letters are
 * the Hiragana, Katakana and Hangul entries'.
 */
export const LETTER_SCRIPTS: readonly (readonly [RegExp, string])[] = Object.entries(
  SCRIPT_LANGUAGES,
).flatMap(([name, languages]) => {
  if (name === "Latin") return [];
  try {
    return [[new RegExp(`\\p{Script=${name}}`, "u"), languages[0]] as const];
  } catch {
    return [];
  }
});

/** The first language that reads an OSD script name; null for a script without installed data. */
export function languageOfScript(script: string): string | null {
  return SCRIPT_LANGUAGES[script]?.[0] ?? null;
}

/**
 * Common short words of Latin-script languages, written without accents (the English pass reads accented
 * letters as plain ones, or drops them): the language whose words are the most frequent on a page names it.
 */
const LATIN_WORDS: Record<string, string[]> = {
  eng: [
    "the",
    "and",
    "of",
    "to",
    "is",
    "in",
    "that",
    "for",
    "with",
    "was",
    "on",
    "are",
    "by",
    "this",
    "from",
  ],
  deu: [
    "der",
    "die",
    "und",
    "das",
    "ist",
    "nicht",
    "mit",
    "ein",
    "eine",
    "den",
    "sich",
    "auf",
    "fur",
    "dem",
    "des",
  ],
  fra: [
    "le",
    "la",
    "les",
    "et",
    "des",
    "est",
    "une",
    "dans",
    "que",
    "du",
    "pour",
    "pas",
    "sur",
    "au",
    "avec",
  ],
  spa: ["el", "los", "las", "y", "que", "del", "por", "una", "con", "para", "es", "se", "como", "mas", "al"],
  por: ["o", "os", "as", "e", "que", "do", "da", "dos", "das", "uma", "com", "para", "nao", "em", "por"],
  ita: ["il", "di", "che", "e", "la", "per", "gli", "del", "della", "sono", "una", "con", "non", "le", "nel"],
  nld: [
    "de",
    "het",
    "een",
    "en",
    "van",
    "is",
    "dat",
    "op",
    "te",
    "niet",
    "met",
    "voor",
    "zijn",
    "ook",
    "aan",
  ],
  pol: ["i", "w", "na", "sie", "nie", "z", "do", "jest", "to", "ze", "jak", "po", "od", "dla", "oraz"],
  tur: [
    "ve",
    "bir",
    "bu",
    "da",
    "de",
    "icin",
    "ile",
    "olarak",
    "daha",
    "gibi",
    "cok",
    "olan",
    "ama",
    "en",
    "mi",
  ],
  vie: [
    "va",
    "cua",
    "cac",
    "la",
    "trong",
    "mot",
    "nhung",
    "duoc",
    "cho",
    "nguoi",
    "khong",
    "voi",
    "co",
    "nay",
    "da",
  ],
  ind: [
    "yang",
    "dan",
    "di",
    "ini",
    "itu",
    "dengan",
    "untuk",
    "tidak",
    "dari",
    "dalam",
    "akan",
    "pada",
    "juga",
    "ke",
    "ada",
  ],
  swe: [
    "och",
    "att",
    "det",
    "som",
    "en",
    "ar",
    "av",
    "for",
    "med",
    "till",
    "den",
    "har",
    "inte",
    "om",
    "ett",
  ],
  ces: ["a", "se", "na", "je", "ze", "v", "to", "do", "jak", "ktere", "pro", "jsou", "by", "tak", "jako"],
  ron: ["si", "de", "la", "in", "pe", "cu", "care", "este", "un", "o", "din", "pentru", "mai", "sa", "au"],
  hun: [
    "a",
    "az",
    "es",
    "hogy",
    "nem",
    "egy",
    "is",
    "meg",
    "de",
    "van",
    "csak",
    "mint",
    "vagy",
    "volt",
    "ez",
  ],
};

/** Letters that mark a Latin-script language on their own, read correctly only once its data is used. */
const LATIN_MARKS: [RegExp, string][] = [
  [/[ơưđạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]/giu, "vie"],
  [/[ąęłńśźż]/giu, "pol"],
  [/[ğış]/giu, "tur"],
  [/[ßäöü]/giu, "deu"],
];

/**
 * How far a language's common words (and marks) must outnumber English ones, as a share of the page's words and
 * in count, for it to be chosen over English.
 */
const MIN_LANGUAGE_SHARE = 0.05;
const MIN_LANGUAGE_MARGIN = 4;

/**
 * The Latin-script language of text read by the English pass: English unless another language's common words
 * (or letters only it has) clearly outnumber English ones.
 *
 * @example
 * latinLanguage("Le comité s'est réuni mardi matin pour examiner le budget") // "fra"
 */
export function latinLanguage(text: string): string {
  const words = text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((w) => w !== "");
  if (words.length === 0) return "eng";
  const counts = new Map<string, number>();
  for (const [language, common] of Object.entries(LATIN_WORDS)) {
    const set = new Set(common);
    counts.set(language, words.filter((w) => set.has(w)).length);
  }
  for (const [marks, language] of LATIN_MARKS) {
    const found = text.match(marks)?.length ?? 0;
    counts.set(language, (counts.get(language) ?? 0) + found * 2);
  }
  let best = "eng";
  for (const [language, count] of counts) if (count > (counts.get(best) ?? 0)) best = language;
  if (best === "eng") return "eng";
  const margin = (counts.get(best) ?? 0) - (counts.get("eng") ?? 0);
  return margin >= MIN_LANGUAGE_MARGIN && margin / words.length >= MIN_LANGUAGE_SHARE ? best : "eng";
}

/**
 * A better language within the script of a first reading, from letters only that language has: Ukrainian in
 * Cyrillic; Persian and Urdu in Arabic script. Null when the first language stays.
 */
export function refineWithinScript(language: string, text: string): string | null {
  const count = (pattern: RegExp) => text.match(pattern)?.length ?? 0;
  if (language === "rus") {
    // Russian data reads Ukrainian і and ї as Latin i beside Cyrillic letters; Russian text is never without ы/э.
    const ukrainian = count(/[іїєґІЇЄҐ]|(?<=\p{Script=Cyrillic})[iï]|[iï](?=\p{Script=Cyrillic})/gu);
    const cyrillic = count(/\p{Script=Cyrillic}/gu);
    if (ukrainian >= 3 || (cyrillic >= 100 && count(/[ыэъЫЭЪ]/gu) === 0)) return "ukr";
  }
  if (language === "ara") {
    if (count(/[ٹڈڑںےۓ]/gu) >= 3) return "urd";
    if (count(/[پچژگ]/gu) >= 3) return "fas";
    // Arabic data spells Persian's own letters with Arabic ones: Persian is told by its common words then.
    const words = text
      .replace(/ك/g, "ک")
      .replace(/[يى]/g, "ی")
      .split(/[^\p{L}]+/u);
    const persian = words.filter((w) => PERSIAN_WORDS.has(w)).length;
    const arabic = words.filter((w) => ARABIC_WORDS.has(w)).length;
    if (persian >= 3 && persian > arabic * 2) return "fas";
  }
  return null;
}

/** Common words of Persian and of Arabic, with Persian's keheh and yeh. */
const PERSIAN_WORDS = new Set([
  "که",
  "را",
  "است",
  "این",
  "برای",
  "می",
  "های",
  "شد",
  "بود",
  "آن",
  "یک",
  "تا",
  "هم",
  "کرد",
]);
const ARABIC_WORDS = new Set([
  "فی",
  "من",
  "علی",
  "إلی",
  "الی",
  "التی",
  "الذی",
  "أن",
  "عن",
  "هذا",
  "هذه",
  "کان",
  "لم",
]);

/** Scripts written without spaces between words: OCR's split of a line into words there is not a space. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\u3000-\u303f\uff00-\uffef]/u;

/** True when a character (the last of one word, or the first of the next) belongs to a script without spaces. */
export function unspacedScript(char: string | undefined): boolean {
  return char !== undefined && UNSPACED.test(char);
}

/** Letters of right-to-left scripts (Hebrew, Arabic and its extensions). */
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/u;

/** True when a word is mostly right-to-left letters. */
export function isRightToLeft(word: string): boolean {
  let rtl = 0;
  let letters = 0;
  for (const char of word) {
    if (!/[\p{L}\p{N}]/u.test(char)) continue;
    letters++;
    if (RTL.test(char)) rtl++;
  }
  return letters > 0 && rtl * 2 > letters;
}

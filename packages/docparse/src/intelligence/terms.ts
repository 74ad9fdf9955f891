/**
 * Words as the offline classifier and extractor compare them: lower case, accents folded, snake_case and
 * camelCase split, common words dropped, and a light suffix stemmer so that "invoices", "invoiced" and "invoice"
 * meet. Deterministic and dependency-free.
 */

const STOPWORDS = new Set(
  (
    "a an the of and or to in on at by for from with without into onto as is are was were be been being this that " +
    "these those it its which who whom whose what when where how any all each every some such no not nor than then " +
    "there their they them he she his her we our you your i me my may might can could should would will shall must " +
    "do does did done has have had having if else also e g eg ie etc per via about above below over under page pages " +
    "one two usually typically often contains contain containing including include includes like document"
  ).split(" "),
);

/** Lower case, accents folded, camelCase and snake_case split into words separated by single spaces. */
export function normalizeText(text: string): string {
  return (
    text
      // Not camelCase: plural acronyms ("FTEs", "IDs") and period-over-period ratios ("YoY", "QoQ").
      .replace(/\b([A-Z]{2,})s\b/g, "$1S")
      .replace(/\b([A-Z])o\1\b/g, (ratio) => ratio.toUpperCase())
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[_\s]+/g, " ")
      .trim()
  );
}

/** A light English stemmer: plural, past and -ing endings, and a few derivational ones. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
  for (const suffix of ["ing", "ed", "ation", "ment", "ness", "ly", "er", "e"]) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 4) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  return w;
}

/** The words of a text (letters and digits), normalised, in order; `#` is kept as a word ("Invoice #"). */
export function words(text: string): string[] {
  return normalizeText(text).match(/[\p{L}\p{N}]+|#/gu) ?? [];
}

/** The stemmed content words of a text, stopwords dropped, in order. */
export function terms(text: string): string[] {
  return words(text)
    .filter((word) => !STOPWORDS.has(word))
    .map(stem);
}

/** Abbreviations and synonyms seen in labels, folded to one canonical stem each. */
const CANONICAL: Record<string, string> = {
  no: "number",
  nr: "number",
  num: "number",
  "#": "number",
  numb: "number",
  qty: "quantity",
  quantit: "quantity",
  amt: "amount",
  addr: "address",
  tel: "phone",
  telephon: "phone",
  dob: "birth",
  ref: "reference",
  desc: "description",
  descript: "description",
  inv: "invoice",
  po: "purchase",
  vat: "tax",
  gst: "tax",
  hst: "tax",
  dept: "department",
  ccy: "currency",
  curr: "currency",
  mobil: "phone",
  cell: "phone",
  dependant: "dependent",
  dat: "date",
  dated: "date",
  mail: "email",
  "e-mail": "email",
  count: "number",
  forenam: "first",
  surnam: "last",
  yearly: "annual",
  year: "annual",
  signatur: "sign",
  sell: "vendor",
  suppli: "vendor",
  client: "customer",
  buy: "customer",
  purchaser: "customer",
  employe: "headcount",
  staff: "headcount",
};

/** Terms with abbreviations folded ("Inv. No." and "invoice number" give the same terms). */
export function labelTerms(text: string): string[] {
  // Phrases whose words alone mean something else ("Family: Anatidae" is not a surname).
  const phrased = text
    // A possessive is its owner ("Applicant's Email" is the applicant's email), not a word "s".
    .replace(/(\p{L})['’]s\b/gu, "$1")
    .replace(/\bd\.\s?o\.\s?b\b\.?/gi, "dob")
    .replace(/\bbirth(?:date|day)\b/gi, "birth date")
    .replace(/e-mail/gi, "email")
    .replace(/\bfamily\s+name/gi, "last name")
    .replace(/\bgiven\s+name/gi, "first name");
  const all = words(phrased);
  const content = all.filter((word) => !STOPWORDS.has(word) || word === "no");
  // A role label ends in "to" or "by" ("Sold To", "Sold By", "Prepared by"): the word tells the parties apart.
  const last = all.at(-1);
  if (content.length > 0 && all.length >= 2 && (last === "to" || last === "by")) content.push(last);
  // "Issued on", "Born on", "Due on": the date of the event.
  if (content.length > 0 && all.length >= 2 && last === "on" && !content.includes("date"))
    content.push("date");
  // A label of common words only ("From", "To") is its words.
  return (content.length > 0 ? content : all).map((word) => {
    const stemmed = stem(word);
    const canonical = CANONICAL[word] ?? CANONICAL[stemmed];
    return canonical === undefined ? stemmed : stem(canonical);
  });
}

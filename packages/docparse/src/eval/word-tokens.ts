/**
 * Word tokens as NLTK's `word_tokenize` cuts them (sentences first, then the improved Treebank rules on each
 * sentence), so that token-level scores can be compared with published figures computed in Python.
 *
 * Python's regular expressions are Unicode-aware where JavaScript's are not: `\w`, `\d`, `\s` and `\b` are
 * spelled out below as Unicode classes, and `$` (which in Python also matches before a final newline) as
 * `(?=\n?$)` where that difference could show.
 *
 * Sentences are found by the Punkt algorithm with no trained parameters but a short list of abbreviations:
 * Punkt's English model (learned abbreviations, collocations, sentence starters and the cases each word was
 * seen in) is data we do not ship. Where a sentence ends matters only for periods, as the Treebank rules split
 * a period off a word only at the end of a sentence; the two agree on every docling-metrics text vector.
 */

/** Python's `\w`: letters, numbers, underscore. */
const WORD = "\\p{L}\\p{N}_";
/** Python's `\s` and `str.split()` whitespace (not JavaScript's: no U+FEFF, but U+001C–U+001F and U+0085). */
const SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const NOT_BEFORE_WORD = `(?<![${WORD}])`;
const NOT_AFTER_WORD = `(?![${WORD}])`;

type Rule = [RegExp, string];
const rule = (source: string, replacement: string, flags = ""): Rule => [
  new RegExp(source, `gu${flags}`),
  replacement,
];

const STARTING_QUOTES: Rule[] = [
  rule("([«“‘„]|[`]+)", " $1 "),
  rule('^"', "``"),
  rule("(``)", " $1 "),
  rule(`([ ([{<])("|'{2})`, "$1 `` "),
  rule(`(')(?!re|ve|ll|m|t|s|d|n)([${WORD}])${NOT_AFTER_WORD}`, "$1 $2", "i"),
];

const ENDING_QUOTES: Rule[] = [
  rule("([»”’])", " $1 "),
  rule("''", " '' "),
  rule('"', " '' "),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 "),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 "),
];

const PUNCTUATION: Rule[] = [
  rule(`([^.])(\\.)([\\])}>"'»”’ ]*)[${SPACE}]*$`, "$1 $2 $3 "),
  rule("([:,])([^\\p{Nd}])", " $1 $2"),
  rule("([:,])(?=\\n?$)", " $1 "),
  rule("\\.{2,}", " $& "),
  rule("[;@#$%&]", " $& "),
  rule(`([^.])(\\.)([\\])}>"']*)[${SPACE}]*$`, "$1 $2$3 "),
  rule("[?!]", " $& "),
  rule("([^'])' ", "$1 ' "),
  rule("[*]", " $& "),
];

const PARENS_BRACKETS = rule("[\\][(){}<>]", " $& ");
const DOUBLE_DASHES = rule("--", " -- ");

const CONTRACTIONS: RegExp[] = [
  ...["(can)(not)", "(d)('ye)", "(gim)(me)", "(gon)(na)", "(got)(ta)", "(lem)(me)", "(more)('n)"].map(
    (pair) => new RegExp(`${NOT_BEFORE_WORD}${pair}${NOT_AFTER_WORD}`, "giu"),
  ),
  new RegExp(`${NOT_BEFORE_WORD}(wan)(na)(?=[${SPACE}])`, "giu"),
  new RegExp(` ('t)(is)${NOT_AFTER_WORD}`, "giu"),
  new RegExp(` ('t)(was)${NOT_AFTER_WORD}`, "giu"),
];

const SPLIT = new RegExp(`[${SPACE}]+`, "u");

function applyRules(text: string, rules: readonly Rule[]): string {
  let out = text;
  for (const [pattern, replacement] of rules) out = out.replace(pattern, replacement);
  return out;
}

/** The improved Treebank tokens of one sentence (NLTK's `NLTKWordTokenizer`). */
export function treebankTokens(sentence: string): string[] {
  let text = applyRules(sentence, STARTING_QUOTES);
  text = applyRules(text, PUNCTUATION);
  text = applyRules(text, [PARENS_BRACKETS, DOUBLE_DASHES]);
  text = applyRules(` ${text} `, ENDING_QUOTES);
  for (const pattern of CONTRACTIONS) text = text.replace(pattern, " $1 $2 ");
  return text.split(SPLIT).filter((token) => token.length > 0);
}

/**
 * Abbreviations whose period does not end a sentence: common English ones, each unambiguous enough that
 * treating "<abbr>. Next" as one sentence is right far more often than not. "al" (et al.) is not one: NLTK's
 * English model splits it, as the docling-metrics vectors show.
 */
const ABBREVIATIONS = new Set([
  "e.g",
  "i.e",
  "etc",
  "vs",
  "cf",
  "fig",
  "figs",
  "eq",
  "eqs",
  "ref",
  "refs",
  "mr",
  "mrs",
  "ms",
  "dr",
  "prof",
  "jr",
  "sr",
  "inc",
  "ltd",
  "corp",
  "co",
  "u.s",
  "u.k",
  "jan",
  "feb",
  "aug",
  "sept",
  "oct",
  "nov",
  "dec",
]);

/** Punkt's word pieces: punctuation other than periods split from words. */
const NON_WORD = "(?:[)\";}\\]*:@'({\\[?!])";
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.[${SPACE}]){2,}\\.)`;
const PUNKT_WORD = new RegExp(
  `${MULTI_CHAR}|(?=[^("\`{\\[:;&#*@)}\\]\\-,])[^${SPACE}]+?(?=[${SPACE}]|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|[${SPACE}]|${NON_WORD}|${MULTI_CHAR}))|[^${SPACE}]`,
  "gu",
);
/** A possible sentence end and what follows it: other punctuation, or whitespace and the next token. */
const PERIOD_CONTEXT = new RegExp(`[.?!](?=(?<after>${NON_WORD}|[${SPACE}]+(?<next>[^${SPACE}]+)))`, "gdu");
const NUMERIC = /^-?[.,]?\p{Nd}[\p{Nd},.-]*\.?$/u;
const INITIAL = /^[\p{L}\p{Nl}\p{No}_]\.$/u;
const REALIGNMENT = new RegExp(`["')\\]}]+?(?:[${SPACE}]+|(?=--)|$)`, "ym");
/** `string.whitespace` of Python, which Punkt uses to find the word before a period. */
const ASCII_SPACE = new Set([" ", "\t", "\n", "\r", "\v", "\f"]);

interface PunktToken {
  tok: string;
  type: string;
  periodFinal: boolean;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function punktToken(tok: string): PunktToken {
  const lower = tok.toLowerCase();
  return {
    tok,
    type: NUMERIC.test(lower) ? "##number##" : lower,
    periodFinal: tok.endsWith("."),
    sentbreak: false,
    abbr: false,
    ellipsis: false,
  };
}

function typeNoPeriod(token: PunktToken): string {
  return token.type.length > 1 && token.type.endsWith(".") ? token.type.slice(0, -1) : token.type;
}

/** First pass: sentence-end characters break, known abbreviations do not, any other word ending in "." does. */
function annotateByType(token: PunktToken): void {
  const { tok } = token;
  if (tok === "." || tok === "?" || tok === "!") token.sentbreak = true;
  else if (/^\.\.+$/.test(tok)) token.ellipsis = true;
  else if (token.periodFinal && !tok.endsWith("..")) {
    const stem = tok.slice(0, -1).toLowerCase();
    if (ABBREVIATIONS.has(stem) || ABBREVIATIONS.has(stem.split("-").at(-1) ?? stem)) token.abbr = true;
    else token.sentbreak = true;
  }
}

/**
 * Punkt's orthographic heuristic reduced to what holds without word statistics: a word in lower case or a
 * punctuation mark does not start a sentence.
 */
function cannotStartSentence(token: PunktToken): boolean {
  return (token.tok.length === 1 && ";:,.!?".includes(token.tok)) || /^\p{Lowercase}/u.test(token.tok);
}

/**
 * Second pass: an initial or an ordinal number before a word that cannot start a sentence is no break. The
 * trained model's other rules need its word statistics and are left out: a known abbreviation stays inside
 * its sentence, and an initial before a capitalized word ends one (the trained model agrees wherever that word
 * is a common one it has seen in lower case, e.g. "SG&A. Generally").
 */
function annotateByContext(token: PunktToken, next: PunktToken): void {
  if (!token.periodFinal) return;
  if ((INITIAL.test(token.tok) || typeNoPeriod(token) === "##number##") && cannotStartSentence(next)) {
    token.sentbreak = false;
    token.abbr = true;
  }
}

/** Whether a sentence break falls on some token of the context other than its last. */
function contextHasBreak(context: string): boolean {
  const tokens: PunktToken[] = [];
  for (const line of context.split("\n")) {
    if (line.trim() === "") continue;
    for (const match of line.matchAll(PUNKT_WORD)) tokens.push(punktToken(match[0]));
  }
  for (const token of tokens) annotateByType(token);
  for (let i = 0; i + 1 < tokens.length; i++) {
    annotateByContext(tokens[i], tokens[i + 1]);
    if (tokens[i].sentbreak) return true;
  }
  return false;
}

function lastAsciiSpace(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (ASCII_SPACE.has(text[i])) return i;
  return 0;
}

/** Candidate sentence ends, each with the word before it, the end character and what follows. */
function* potentialEnds(text: string): Generator<{ match: RegExpExecArray; context: string }> {
  let previous: RegExpExecArray | null = null;
  let previousSlice: [number, number] = [0, 0];
  const contextOf = (match: RegExpExecArray, slice: [number, number]) =>
    text.slice(slice[0], slice[1]) + match[0] + (match.groups?.after ?? "");
  for (const match of text.matchAll(PERIOD_CONTEXT)) {
    const before = text.slice(previousSlice[1], match.index);
    let wordStart = lastAsciiSpace(before);
    wordStart = wordStart ? wordStart + previousSlice[1] + 1 : previousSlice[0];
    const slice: [number, number] = [wordStart, match.index];
    if (previous && previousSlice[1] <= slice[0])
      yield { match: previous, context: contextOf(previous, previousSlice) };
    previous = match;
    previousSlice = slice;
  }
  if (previous) yield { match: previous, context: contextOf(previous, previousSlice) };
}

/** The sentences of a text, as Punkt cuts them, closing brackets and quotes kept with the sentence they end. */
export function sentences(text: string): string[] {
  const spans: [number, number][] = [];
  let lastBreak = 0;
  for (const { match, context } of potentialEnds(text)) {
    if (!contextHasBreak(context)) continue;
    const end = match.index + match[0].length;
    spans.push([lastBreak, end]);
    lastBreak = match.indices?.groups?.next?.[0] ?? end;
  }
  spans.push([lastBreak, text.replace(new RegExp(`[${SPACE}]+$`, "u"), "").length]);
  const out: string[] = [];
  let realign = 0;
  for (let i = 0; i < spans.length; i++) {
    const start = spans[i][0] + realign;
    const next = spans[i + 1];
    if (!next) {
      if (spans[i][1] > start) out.push(text.slice(start, spans[i][1]));
      continue;
    }
    REALIGNMENT.lastIndex = 0;
    const following = text.slice(next[0], next[1]);
    const moved = REALIGNMENT.exec(following);
    if (moved) {
      out.push(text.slice(start, next[0] + moved[0].trimEnd().length));
      realign = moved[0].length;
    } else {
      realign = 0;
      if (spans[i][1] > start) out.push(text.slice(start, spans[i][1]));
    }
  }
  return out;
}

/**
 * The word tokens of a text, as NLTK's `word_tokenize` gives them for English.
 *
 * @example
 * wordTokens("Good muffins cost $3.88 in New York. Please buy me two."); // [..., "York", ".", "Please", ..., "."]
 */
export function wordTokens(text: string): string[] {
  return sentences(text).flatMap(treebankTokens);
}

import { journalLine } from "./journal-line.ts";

/**
 * Lines that say what they are: a journal line (`Journal | Vol. 12 | No. 3`, `pp. 1–9`), an identifier of the
 * copy (DOI, ISSN, ISBN), a copyright line, a download or print stamp, a revision or part-number line.
 */
const FURNITURE_PATTERNS: readonly RegExp[] = [
  /\bvol(?:\.|ume)\s*\d+\b.*\b(?:no\.|issue|number|pp?\.)\s*\d+/i,
  /\b(?:doi:\s*10\.|doi\.org\/10\.|issn\b|isbn\b|e-?issn\b)/i,
  /(?:©|\(c\)\s*(?:19|20)\d\d|\bcopyright\s+(?:©\s*)?(?:19|20)\d\d)/i,
  /^(?:downloaded|printed|retrieved|accessed|generated)\s+(?:from|on|by|at)\b/i,
  /\b(?:downloaded|printed)\s+(?:from|on|by)\b.*\b(?:19|20)\d\d\b/i,
  /\b(?:rev(?:\.|ision)|part\s*(?:no\.?|number|#)|doc(?:ument)?\s*(?:no\.?|number|#))\s*[:#]?\s*[A-Z0-9][\w.-]*\s*(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|(?:19|20)\d\d)?\s*$/i,
];

/**
 * A citation of the issue the page is in, on one short line: a year and a page range (`Journal Title, 2022, pp.
 * 1–9`, `Proc. of the Conference (2019) pp. 12-20`). A reference in a list says as much but runs longer, with its
 * authors and title.
 */
const ISSUE_CITATION = /\b(?:19|20)\d\d\b.*\bpp?\.\s*\d+\s*[-–—]\s*\d+\b/i;

/** The text says it is page furniture. */
export function furniturePattern(text: string): boolean {
  return (
    text.length <= 200 &&
    (FURNITURE_PATTERNS.some((pattern) => pattern.test(text)) ||
      journalLine(text) ||
      (text.length <= 60 && ISSUE_CITATION.test(text)))
  );
}

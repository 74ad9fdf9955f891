/**
 * A document's number as a running head prints it: a patent's number (`5,901,666`, `US 2005/0123456 A1`,
 * `EP 1 234 567 B1`), a standard's or a report's number (`No. 12-3456`): digit groups with at most a short prefix
 * of capitals or `No.` and a kind code after. Five digits at least; a date alone is not one.
 */
const DOCUMENT_NUMBER = /^(?:[A-Z]{1,4}\.?\s?){0,2}(?:(?:No|Nr)\.?\s*|#\s*)?\d[\d,./ -]*\d(?:\s?[A-Z]\d?)?$/;
const DATE = /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/;

/** Whether a line's text is a document number (see DOCUMENT_NUMBER). */
export function documentNumber(text: string): boolean {
  const t = text.trim();
  if (t.length > 30 || !DOCUMENT_NUMBER.test(t) || DATE.test(t)) return false;
  return (t.match(/\d/g) ?? []).length >= 5;
}

/**
 * A document number heading a page: the page's first line, a number-like text alone, in display type no larger
 * than twice the body (a patent's number sits over its columns a size up from their text; a year on a cover is
 * larger still and stays a title).
 */
export function documentNumberHead(
  text: string,
  fontSize: number,
  bodySize: number,
  firstLine: boolean,
): boolean {
  return firstLine && fontSize < bodySize * 2 && documentNumber(text);
}

/**
 * Lines that give a value under a label, as a letter's or an invoice's foot sets its sender's details: `Telefon:
 * +49 000 00000`, `Bankverbindung: Bankhaus X`, a short label before a number or a code (`BLZ 000.000.00`, `Kto.
 * 000.000.000`, `BIC ABCDEFXX`, `T +32 3 265 98 43`), or a contact standing alone (an e-mail address, a web
 * address, an IBAN, a telephone number).
 */
const LABELLED = /^\p{L}[\p{L}.\-– ]{0,24}:\s*\S/u;
const CODED = /^\p{L}[\p{L}.\-–]{0,12}\.?:?\s+[+(]?[\dA-Z][\dA-Z ()./-]{4,}$/u;
const CONTACT =
  /^(?:\S+@\S+\.\S+|(?:https?:\/\/|www\.)\S+|[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,}(?: ?[A-Z0-9]{1,4})?|\+?[\d ()/.-]{7,})$/;

/** One line of label and value, or of a contact alone. */
export function detailLine(line: string): boolean {
  const text = line.trim();
  return LABELLED.test(text) || CODED.test(text) || CONTACT.test(text);
}

/**
 * A block of details: three lines or more, each a label and its value or a contact (a letter's bank details under
 * its body, a sender's telephone, e-mail and web address). A reader looks them up (the IBAN to pay, the number to
 * call): on a page where they are not repeated they are content, not a running footer, however small they are set.
 * A footer is one or two short lines; a repeated one is still found by repetition.
 */
export function detailsBlock(lines: readonly string[]): boolean {
  return lines.length >= 3 && lines.every(detailLine);
}

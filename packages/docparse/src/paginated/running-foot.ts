/**
 * A running foot: a short title and its page number on one line (`Maintenance Log 39`, `39 | Annual Report`),
 * set at the page's foot no larger than the body's headings. Set in bold it looks like a heading; at the foot of
 * the page, with its page number, it is furniture even on a single page.
 */
const TITLE_AND_NUMBER = /^(?:[^\d\n]{3,50}?\s*[|·•–—-]?\s+\d{1,4}|\d{1,4}\s+[|·•–—-]?\s*[^\d\n]{3,50})$/;

export function runningFoot(text: string, atFoot: boolean, fontSize: number, bodySize: number): boolean {
  return atFoot && fontSize <= bodySize * 1.2 && TITLE_AND_NUMBER.test(text.trim());
}

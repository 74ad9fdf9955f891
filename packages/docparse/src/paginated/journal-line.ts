/**
 * A journal or report line: three short labels or more set apart by vertical bars (`Journal | Vol. 3 | Issue 2`,
 * `Research report | Company | Banking`), the line a page's publisher prints above or below its content. A
 * sentence is no such line: no label ends in sentence punctuation, and each is a few words at most.
 */
export function journalLine(text: string): boolean {
  const parts = text.trim().split(/\s*[|｜]\s*/);
  if (parts.length < 3 || text.length > 120) return false;
  return parts.every((part) => part.length > 0 && part.length <= 40 && !/[.!?;:。！？]$/u.test(part));
}

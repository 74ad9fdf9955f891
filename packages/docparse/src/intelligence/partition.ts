/**
 * Splitting a document into the partitions structured extraction runs over: the whole document, each page, each
 * section (a heading and what follows it), each item, or spans between start and end patterns.
 */
import type { PartitionStrategy } from "@svc/contract";
import { type DocItem, type DocumentModel, itemText } from "../model.ts";

/** A part of a document that gets its own structured_data entry: its pages (ascending) and items in order. */
export interface Partition {
  pageNumbers: number[];
  items: DocItem[];
}

/** The page an item is on (its first provenance), or null when it has none. */
export function itemPage(item: DocItem): number | null {
  return item.prov[0]?.page ?? null;
}

function pagesOf(items: readonly DocItem[]): number[] {
  const pages = new Set<number>();
  for (const item of items) for (const prov of item.prov) pages.add(prov.page);
  return [...pages].sort((a, b) => a - b);
}

function isHeading(item: DocItem): boolean {
  return item.label === "section_header" || item.label === "title";
}

/** Items longer than this are matched against patterns by their first characters only (see compilePattern). */
const PATTERN_TEXT_CHARS = 200;
/** Quantifiers a pattern may hold and still be run as a regular expression. */
const MAX_PATTERN_QUANTIFIERS = 3;

/**
 * A start or end pattern as a matcher. A pattern is run as a case-insensitive regular expression only when it
 * cannot backtrack badly: no backreferences or lookaround, no quantified group (star height 1, which rules out
 * `(a+)+` and `(a|aa)*`), at most MAX_PATTERN_QUANTIFIERS quantifiers, and it is matched against at most the
 * first PATTERN_TEXT_CHARS characters of an item, so the work per item is small and bounded. Any other pattern,
 * and one that does not compile, is matched as a plain case-insensitive substring.
 */
export function compilePattern(pattern: string): (text: string) => boolean {
  const literal = (text: string) => text.toLowerCase().includes(pattern.toLowerCase());
  const source = pattern.replace(/\\./g, "e"); // escaped characters are literals, whatever they are
  const unsafe =
    /\\[1-9k]/.test(pattern) ||
    /\(\?<?[=!]/.test(pattern) ||
    /\)\s*(?:[*+?]|\{\d)/.test(source) ||
    (source.match(/[*+?]|\{\d+,?\d*\}/g) ?? []).length > MAX_PATTERN_QUANTIFIERS;
  if (unsafe) return literal;
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, "iu");
  } catch {
    return literal;
  }
  return (text) => regex.test(text.slice(0, PATTERN_TEXT_CHARS));
}

function byPatterns(items: readonly DocItem[], startPatterns: string[], endPatterns: string[]): DocItem[][] {
  const starts = startPatterns.map(compilePattern);
  const ends = endPatterns.map(compilePattern);
  const matches = (matchers: ((text: string) => boolean)[], item: DocItem) => {
    const text = itemText(item);
    return matchers.some((matcher) => matcher(text));
  };
  const groups: DocItem[][] = [];
  // Without start patterns a partition is open from the document's start and after each end.
  let open: DocItem[] | null = starts.length === 0 ? [] : null;
  for (const item of items) {
    if (starts.length > 0 && matches(starts, item)) {
      if (open && open.length > 0) groups.push(open);
      open = [];
    }
    if (open) {
      open.push(item);
      if (ends.length > 0 && matches(ends, item)) {
        groups.push(open);
        open = starts.length === 0 ? [] : null;
      }
    }
  }
  if (open && open.length > 0) groups.push(open);
  return groups;
}

/**
 * The partitions of a document (or of the given pages of it; null = every page) under a strategy:
 * - `none`: one partition of everything;
 * - `page`: one per page, in page order (a page with no items gives an empty partition);
 * - `section`: a new partition at every heading (section header or title); what comes before the first heading
 *   is a partition of its own;
 * - `fragment`: one per item;
 * - `{patterns}`: a partition starts at an item matching a start pattern and ends after an item matching an end
 *   pattern (or at the next start); without start patterns, partitions run from the document's start and after
 *   each end; items outside every partition are left out. When no pattern matches anything, the whole document
 *   is one partition, so a pattern that misses does not lose the extraction.
 * Page furniture (headers, footers, page numbers) is left out of every strategy but `page` and `none`.
 */
export function partitionDocument(
  model: DocumentModel,
  strategy: PartitionStrategy,
  pages: number[] | null,
): Partition[] {
  const wanted = pages === null ? null : new Set(pages);
  const keptPages =
    wanted === null
      ? model.pages.map((page) => page.pageNumber)
      : model.pages.map((page) => page.pageNumber).filter((page) => wanted.has(page));
  const items = model.items.filter((item) => {
    if (wanted === null) return true;
    const page = itemPage(item);
    return page !== null && wanted.has(page);
  });
  const content = items.filter((item) => !item.furniture);
  const toPartitions = (groups: DocItem[][]) =>
    groups.map((group) => ({ pageNumbers: pagesOf(group), items: group }));

  if (strategy === "none") return [{ pageNumbers: keptPages, items }];
  if (strategy === "page") {
    return keptPages.map((pageNumber) => ({
      pageNumbers: [pageNumber],
      items: items.filter((item) => itemPage(item) === pageNumber),
    }));
  }
  if (strategy === "fragment") return toPartitions(content.map((item) => [item]));
  if (strategy === "section") {
    const groups: DocItem[][] = [];
    for (const item of content) {
      if (groups.length === 0 || isHeading(item)) groups.push([]);
      groups[groups.length - 1].push(item);
    }
    return toPartitions(groups);
  }
  const groups = byPatterns(
    content,
    strategy.patterns.start_patterns ?? [],
    strategy.patterns.end_patterns ?? [],
  );
  if (groups.length === 0) return [{ pageNumbers: keptPages, items }];
  return toPartitions(groups);
}

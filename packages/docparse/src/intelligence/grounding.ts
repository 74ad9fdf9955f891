/**
 * Citations for data a model extracted: each scalar value in the data is looked up in the partition's items; of
 * the items whose text holds it (case, spacing and number formatting aside), the one that also names the most
 * words of the field's name (its label, most likely) is its source, the first in reading order on a tie. A value found
 * nowhere gets no citation: a citation is only given where the document shows the value.
 */
import type { DocItem } from "../model.ts";
import { itemText } from "../model.ts";
import type { Citation } from "./extract.ts";
import type { Partition } from "./partition.ts";
import { escapePointer } from "./schema.ts";

function normalize(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/** The spellings a number may have in a document: 1234.5, 1,234.50, 1 234.50, 1234,50. */
function numberSpellings(value: number): string[] {
  const spellings = new Set<string>([String(value)]);
  if (Number.isFinite(value)) {
    const fixed = value.toFixed(2);
    spellings.add(fixed);
    spellings.add(value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
    spellings.add(value.toLocaleString("en-US", { maximumFractionDigits: 6 }));
    spellings.add(fixed.replace(".", ","));
  }
  return [...spellings].map(normalize);
}

function spellingsOf(value: unknown): string[] {
  if (typeof value === "number") return numberSpellings(value);
  if (typeof value === "string") {
    const text = normalize(value);
    return text.length >= 2 ? [text] : [];
  }
  return [];
}

function containsSpelling(haystack: string, spelling: string): boolean {
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(spelling, from);
    if (at < 0) return false;
    // A number must not be a part of a longer number (12 inside 120).
    const before = haystack[at - 1] ?? " ";
    const after = haystack[at + spelling.length] ?? " ";
    const digit = /\d/;
    if (
      !(digit.test(spelling[0]) && digit.test(before)) &&
      !(digit.test(spelling.at(-1) ?? "") && digit.test(after))
    ) {
      return true;
    }
    from = at + 1;
  }
}

/** Words of a field's name and its parents' (`/line_items/0/unit_price` → line, items, unit, price), lowercase. */
function fieldWords(pointer: string): string[] {
  return pointer
    .split("/")
    .flatMap((segment) => segment.replace(/([a-z])([A-Z])/g, "$1 $2").split(/[^A-Za-z]+/))
    .map((word) => word.toLowerCase())
    .filter((word) => word.length >= 3);
}

/** Citations of every scalar in `data` that the partition's text shows, by JSON pointer. */
export function groundCitations(partition: Partition, data: unknown): Citation[] {
  const items = partition.items.map((item) => ({ item, text: normalize(itemText(item)) }));
  const citations: Citation[] = [];
  const source = (value: unknown, pointer: string): DocItem | null => {
    const spellings = spellingsOf(value);
    if (spellings.length === 0) return null;
    const words = fieldWords(pointer);
    let best: { item: DocItem; score: number } | null = null;
    for (const { item, text } of items) {
      if (!spellings.some((spelling) => containsSpelling(text, spelling))) continue;
      const score = words.filter((word) => text.includes(word)).length;
      if (!best || score > best.score) best = { item, score };
    }
    return best?.item ?? null;
  };
  const walk = (value: unknown, pointer: string) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      for (const [index, element] of value.entries()) walk(element, `${pointer}/${index}`);
      return;
    }
    if (typeof value === "object") {
      for (const [name, child] of Object.entries(value)) walk(child, `${pointer}/${escapePointer(name)}`);
      return;
    }
    const item = source(value, pointer);
    if (!item) return;
    const prov = item.prov[0];
    citations.push({
      field: pointer,
      page_number: prov?.page ?? partition.pageNumbers[0] ?? 1,
      bbox: prov?.bbox ?? null,
      text: itemText(item).slice(0, 500),
    });
  };
  walk(data, "");
  return citations;
}

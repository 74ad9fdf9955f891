/**
 * Offline page classification: each page scored against every class's name and description from lexical and
 * structural evidence, deterministic and without a model.
 *
 * Lexical: the class's key terms (its name's and description's content words, stemmed) found on the page, a term
 * in a heading counting double and a name term counting double. Structural: the cues a page shows (label: value
 * lines, checkboxes, tables, currency amounts, totals lines, headings with prose) count for a class whose words ask
 * for them (a class about forms wants form cues, one about invoices wants amounts and totals...).
 *
 * lexical = the class's term weight found (in full in a heading, half in body text) over a quarter of its total
 * weight (at least 2), capped at 1: a description names more than any one page shows.
 * score = lexical × (0.4 + 0.6 × share of the class's expected cues the page shows), or lexical alone when the
 * class's words ask for no cue. So a page that only talks about a class (a cover letter mentioning "the enclosed
 * invoice") scores at most 0.4, under the threshold, while a page that also looks like one passes.
 * A page goes to the one class with the highest score when that score is at least CLASSIFICATION_THRESHOLD (0.5);
 * otherwise it matches none.
 */
import type { PageClassConfig } from "@svc/contract";
import type { DocItem, DocumentModel, TableItem } from "../model.ts";
import { itemPage } from "./partition.ts";
import { terms } from "./terms.ts";

/** The least score for a page to be put in a class. */
export const CLASSIFICATION_THRESHOLD = 0.5;

/** The wire shape of one class's pages (ParseResult.page_classes). */
export interface PageClassification {
  page_class: string;
  page_numbers: number[];
  classification_reasons?: { [pageNumber: string]: string };
}

type Cue = "form" | "checkbox" | "table" | "amounts" | "totals" | "prose" | "headings";

/** Words of a class that say it expects a cue, by stem. */
const CUE_WORDS: Record<Cue, string[]> = {
  form: ["form", "application", "questionnair", "registration", "field", "applicant", "enrollment", "intak"],
  checkbox: ["checkbox", "check", "tick", "option", "consent"],
  table: ["tabl", "schedul", "statement", "itemiz", "list", "line", "ledger", "row"],
  amounts: [
    "invoic",
    "bill",
    "receipt",
    "payment",
    "amount",
    "price",
    "cost",
    "total",
    "tax",
    "due",
    "fee",
    "quot",
  ],
  totals: ["invoic", "bill", "receipt", "total", "subtotal", "balanc"],
  prose: ["report", "summary", "analysi", "finding", "narrativ", "letter", "articl", "memo", "discussion"],
  headings: ["report", "section", "chapter", "summary", "overview"],
};

interface PageEvidence {
  terms: Set<string>;
  headingTerms: Set<string>;
  cues: Map<Cue, string>;
}

const CURRENCY_AMOUNT = /(?:[$€£¥]\s?\d[\d,.]*|\b\d[\d,]*\.\d{2}\b\s?(?:USD|EUR|GBP)?)/g;
const LABEL_VALUE = /(?:^|\s)\p{L}[\p{L}\p{N} .#/()'-]{0,30}:\s+\S/gmu;
const CHECKBOX = /[☐☑☒]|\[\s?[xX✓]?\s?\]/g;
const TOTALS = /\b(?:sub-?total|total|amount due|balance due|grand total)\b/i;

function count(text: string, pattern: RegExp): number {
  return (text.match(pattern) ?? []).length;
}

/** A paragraph of running text: fifteen words or more ending in a full stop, not a `Label: value` line. */
function isProse(item: DocItem, text: string): boolean {
  return (
    item.label === "text" &&
    text.split(/\s+/).length >= 15 &&
    /[.!?]["')]?$/.test(text.trim()) &&
    !/^[^:]{1,40}:\s/.test(text)
  );
}

/**
 * Label/value pairs a table holds: rows of a two- or four-column table whose label columns hold short text and
 * value columns something, or the columns of a table of one header row over one row of values.
 */
function keyValueRowsOf(table: TableItem): number {
  if (table.numRows === 2 && table.numCols <= 6) return table.numCols; // headers over one row of values
  if (table.numCols !== 2 && table.numCols !== 4) return 0;
  const byRow = new Map<number, string[]>();
  for (const cell of table.cells) {
    const row = byRow.get(cell.row) ?? Array.from({ length: table.numCols }, () => "");
    row[cell.col] = cell.text.trim();
    byRow.set(cell.row, row);
  }
  let rows = 0;
  for (const row of byRow.values()) {
    for (let col = 0; col < table.numCols; col += 2) {
      if (/^\p{L}[^:]{0,40}$/u.test(row[col]) && row[col + 1] !== "") rows++;
    }
  }
  return rows;
}

function evidenceOf(items: readonly DocItem[]): PageEvidence {
  const all = new Set<string>();
  const headingTerms = new Set<string>();
  let text = "";
  let tables = 0;
  let prose = 0;
  let keyValueRows = 0;
  let headings = 0;
  for (const item of items) {
    const itemTextValue =
      item.label === "table"
        ? item.cells.map((cell) => cell.text).join("\n")
        : item.label === "figure"
          ? (item.caption ?? "")
          : item.text;
    text += `${itemTextValue}\n`;
    for (const term of terms(itemTextValue)) all.add(term);
    if (item.label === "section_header" || item.label === "title") {
      headings++;
      for (const term of terms(itemTextValue)) headingTerms.add(term);
    }
    if (item.label === "table") {
      tables++;
      for (const cell of item.cells) {
        if (cell.columnHeader) for (const term of terms(cell.text)) headingTerms.add(term);
      }
    }
    if (isProse(item, itemTextValue)) prose++;
    if (item.label === "table") keyValueRows += keyValueRowsOf(item);
  }
  const cues = new Map<Cue, string>();
  const labelValues = count(text, LABEL_VALUE);
  const tableRows = items.reduce((rows, item) => rows + (item.label === "table" ? item.numRows : 0), 0);
  if (labelValues + keyValueRows >= 3) {
    cues.set("form", `${labelValues} label: value lines, ${keyValueRows} label/value table rows`);
  }
  const checkboxes = count(text, CHECKBOX);
  if (checkboxes >= 1) cues.set("checkbox", `${checkboxes} checkboxes`);
  if (tables > 0) cues.set("table", `${tables} table(s), ${tableRows} rows`);
  const amounts = count(text, CURRENCY_AMOUNT);
  if (amounts >= 2) cues.set("amounts", `${amounts} currency amounts`);
  if (TOTALS.test(text)) cues.set("totals", "a totals line");
  if (prose > 0) cues.set("prose", `${prose} paragraph(s) of prose`);
  if (headings >= 2) cues.set("headings", `${headings} headings`);
  return { terms: all, headingTerms, cues };
}

interface ClassProfile {
  name: string;
  /** Stem → weight (name terms 2, description terms 1). */
  terms: Map<string, number>;
  cues: Cue[];
}

function profileOf(config: PageClassConfig): ClassProfile {
  const weights = new Map<string, number>();
  for (const term of terms(config.description)) weights.set(term, Math.max(weights.get(term) ?? 0, 1));
  for (const term of terms(config.name)) weights.set(term, 2);
  const stems = [...weights.keys()];
  const cues = (Object.keys(CUE_WORDS) as Cue[]).filter((cue) =>
    CUE_WORDS[cue].some((word) => stems.some((stemmed) => stemmed.startsWith(word))),
  );
  return { name: config.name, terms: weights, cues };
}

interface Score {
  score: number;
  reason: string;
}

function scorePage(profile: ClassProfile, evidence: PageEvidence): Score {
  let total = 0;
  let found = 0;
  const matched: string[] = [];
  for (const [term, weight] of profile.terms) {
    total += weight;
    if (evidence.headingTerms.has(term)) {
      found += weight;
      matched.push(`${term} (heading)`);
    } else if (evidence.terms.has(term)) {
      found += weight / 2;
      matched.push(term);
    }
  }
  // Terms count in full when in a heading, half in body text; a quarter of the class's weight in full is enough
  // for the lexical part to saturate: descriptions name more than any one page shows.
  const lexical = total === 0 ? 0 : Math.min(1, found / Math.max(2, total / 4));
  const shown = profile.cues.filter((cue) => evidence.cues.has(cue));
  const structural = profile.cues.length === 0 ? 0 : shown.length / profile.cues.length;
  const score = profile.cues.length === 0 ? lexical : lexical * (0.4 + 0.6 * structural);
  const cueText = shown.map((cue) => evidence.cues.get(cue)).join(", ");
  const reason =
    `score ${score.toFixed(2)} (threshold ${CLASSIFICATION_THRESHOLD}); ` +
    `terms: ${matched.length > 0 ? matched.join(", ") : "none"}; cues: ${cueText || "none"}`;
  return { score, reason };
}

/**
 * Each class with the pages put in it (in request order, one entry per class, pages ascending) and the reason
 * each page was put there. A page is put in at most one class (its best, at or above the threshold).
 */
export function classifyPages(model: DocumentModel, classes: PageClassConfig[]): PageClassification[] {
  const profiles = classes.map(profileOf);
  const byPage = new Map<number, DocItem[]>();
  for (const page of model.pages) byPage.set(page.pageNumber, []);
  for (const item of model.items) {
    const page = itemPage(item);
    // Page headers count too: a form's or an invoice's title is often read as one.
    if (page !== null && (!item.furniture || item.label === "page_header")) byPage.get(page)?.push(item);
  }
  const results: PageClassification[] = classes.map((config) => ({
    page_class: config.name,
    page_numbers: [],
    classification_reasons: {},
  }));
  for (const [pageNumber, items] of [...byPage].sort((a, b) => a[0] - b[0])) {
    if (items.length === 0) continue;
    const evidence = evidenceOf(items);
    let best: { index: number; score: Score } | null = null;
    profiles.forEach((profile, index) => {
      const score = scorePage(profile, evidence);
      if (best === null || score.score > best.score.score) best = { index, score };
    });
    const chosen = best as { index: number; score: Score } | null;
    if (chosen && chosen.score.score >= CLASSIFICATION_THRESHOLD) {
      const result = results[chosen.index];
      result.page_numbers.push(pageNumber);
      (result.classification_reasons as Record<string, string>)[String(pageNumber)] = chosen.score.reason;
    }
  }
  return results;
}

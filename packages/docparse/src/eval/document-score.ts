import type { FragmentType, Page } from "@svc/contract";
import { type ReadingBlock, readingOrderScore } from "./reading-order.ts";
import type { Reference, ReferenceTable } from "./reference.ts";
import { parseHtmlTable, type TableTree, teds } from "./teds.ts";
import { markdownForComparison, textNid } from "./text-metrics.ts";

/** What the engine returned that the evaluation reads: the ParseResult's markdown and pages views. */
export interface ParsedViews {
  markdown: string;
  pages: readonly Page[];
}

export interface DocumentScores {
  /** Text NID of the whole markdown, after `markdownForComparison` on both sides. */
  nid: number;
  /** Mean TEDS over the reference's tables; null when it has none. */
  teds: number | null;
  tedsStructure: number | null;
  /** Reference tables paired with a predicted table. */
  tablesMatched: number;
  tablesReference: number;
  /** See `readingOrderScore`; null when no block could be matched. */
  readingOrder: number | null;
}

/** Page furniture, left out of the reading order as the reference leaves it out of the body. */
const NOT_BODY_TEXT = new Set<FragmentType>(["table", "page_header", "page_footer", "page_number"]);

/** The predicted text blocks in reading order: every page's fragments but tables and furniture. */
export function predictedBlocks(pages: readonly Page[]): ReadingBlock[] {
  const blocks: ReadingBlock[] = [];
  for (const page of pages) {
    const fragments = [...(page.page_fragments ?? [])].sort(
      (a, b) => (a.reading_order ?? 0) - (b.reading_order ?? 0),
    );
    for (const fragment of fragments) {
      if (NOT_BODY_TEXT.has(fragment.fragment_type)) continue;
      const text = markdownForComparison(fragment.content.content);
      if (text) blocks.push({ text, page: page.page_number });
    }
  }
  return blocks;
}

interface PredictedTable {
  page: number;
  tree: TableTree;
}

function predictedTables(pages: readonly Page[]): PredictedTable[] {
  const tables: PredictedTable[] = [];
  for (const page of pages) {
    for (const fragment of page.page_fragments ?? []) {
      const html =
        fragment.fragment_type === "table" && "html" in fragment.content ? fragment.content.html : null;
      if (html) tables.push({ page: page.page_number, tree: parseHtmlTable(html) });
    }
  }
  return tables;
}

/**
 * Pairs reference and predicted tables one to one, best TEDS first, only on the same page when the reference
 * knows its page. A reference table left without a partner is compared with an empty table, which scores 0:
 * a missed table costs as much as a table with nothing right.
 */
function scoreTables(reference: readonly ReferenceTable[], pages: readonly Page[]) {
  const predicted = predictedTables(pages);
  const refTrees = reference.map((table) => parseHtmlTable(table.html));
  const pairs: { ref: number; pred: number; score: number; structure: number }[] = [];
  reference.forEach((table, ref) => {
    predicted.forEach((candidate, pred) => {
      if (table.page !== null && table.page !== candidate.page) return;
      const score = teds(refTrees[ref], candidate.tree).score;
      const structure = teds(refTrees[ref], candidate.tree, { structureOnly: true }).score;
      pairs.push({ ref, pred, score, structure });
    });
  });
  pairs.sort((a, b) => b.score - a.score || b.structure - a.structure || a.ref - b.ref || a.pred - b.pred);
  const refScores = reference.map(() => ({ score: 0, structure: 0 }));
  const refTaken = new Set<number>();
  const predTaken = new Set<number>();
  for (const pair of pairs) {
    if (refTaken.has(pair.ref) || predTaken.has(pair.pred)) continue;
    refTaken.add(pair.ref);
    predTaken.add(pair.pred);
    refScores[pair.ref] = { score: pair.score, structure: pair.structure };
  }
  const mean = (values: number[]) =>
    values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    teds: mean(refScores.map((s) => s.score)),
    tedsStructure: mean(refScores.map((s) => s.structure)),
    tablesMatched: refTaken.size,
    tablesReference: reference.length,
  };
}

/**
 * Scores a parse against a reference. A failed parse is scored as an empty prediction (`{ markdown: "",
 * pages: [] }`): NID 0, TEDS 0 for every reference table, no reading order.
 *
 * @example
 * scoreDocument(reference, { markdown: result.markdown, pages: result.pages }).nid;
 */
export function scoreDocument(reference: Reference, parsed: ParsedViews): DocumentScores {
  return {
    nid: textNid(markdownForComparison(reference.markdown), markdownForComparison(parsed.markdown)),
    ...scoreTables(reference.tables, parsed.pages),
    readingOrder: readingOrderScore(reference.blocks, predictedBlocks(parsed.pages)).score,
  };
}

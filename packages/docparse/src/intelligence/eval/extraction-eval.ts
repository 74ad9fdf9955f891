/**
 * The evaluation of offline extraction and classification: generates the labelled set (extraction-set.ts) into a
 * directory, parses each document with the engine, extracts with its schema (partition strategy `none`) and
 * scores fields; classifies the pages of the mixed documents and counts pages given their expected class (or none).
 */
import { parseDocument } from "../../index.ts";
import { classifyPages } from "../classify.ts";
import { extractStructured } from "../extract.ts";
import { partitionDocument } from "../partition.ts";
import { validateAgainstSchema } from "../schema.ts";
import { addCounts, type FieldCounts, type FieldMiss, scoreFields } from "./extraction-score.ts";
import {
  buildExtractionSet,
  buildMixedSet,
  FORMATS,
  type Format,
  type Kind,
  MIME_TYPES,
  PAGE_CLASSES,
  renderDocuments,
  type Wording,
} from "./extraction-set.ts";

export interface DocumentResult extends FieldCounts {
  id: string;
  /** Whether the document uses the wordings the extractor was developed against, or held-out, fresh or unseen ones. */
  wording: Wording;
  kind: Kind;
  layout: string;
  format: Format;
  misses: FieldMiss[];
  /** validateAgainstSchema's messages; the data must always validate. */
  schemaErrors: string[];
}

export interface PageResult {
  document: string;
  page: number;
  expected: string | null;
  predicted: string | null;
}

export interface EvalReport {
  documents: DocumentResult[];
  byKind: Record<string, FieldCounts>;
  byFormat: Record<string, FieldCounts>;
  overall: FieldCounts;
  /** The held-out wordings' documents, counted apart from the figures above. */
  heldOut: FieldCounts;
  heldOutByKind: Record<string, FieldCounts>;
  /** The fresh wordings' documents (never used to tune the extractor), counted apart too. */
  fresh: FieldCounts;
  freshByKind: Record<string, FieldCounts>;
  /** The unseen wordings' documents (a fourth set, never used to tune the extractor), counted apart too. */
  unseen: FieldCounts;
  unseenByKind: Record<string, FieldCounts>;
  pages: PageResult[];
  /** Pages whose count after conversion differs from the pages written (the set's assumption broke). */
  pageCountMismatches: string[];
}

export interface EvalOptions {
  /** Working directory for the generated files. */
  dir: string;
  /** Documents per kind and layout (default 1). */
  perLayout?: number;
  formats?: readonly Format[];
  /** Held-out wording documents per kind and layout (default 1; 0 to skip). */
  heldOut?: number;
  /** Fresh wording documents per kind and layout (default 1; 0 to skip). */
  fresh?: number;
  /** Unseen wording documents per kind and layout (default 1; 0 to skip). */
  unseen?: number;
  /** Mixed documents for classification (default 6; 0 to skip). */
  mixed?: number;
  /** Keep only these document ids (for a quick subset). */
  only?: (id: string) => boolean;
}

export async function runExtractionEval(options: EvalOptions): Promise<EvalReport> {
  const formats = options.formats ?? FORMATS;
  const documents = [
    ...buildExtractionSet(options.perLayout ?? 1).map((doc) => ({ ...doc, wording: "dev" as const })),
    ...buildExtractionSet(options.heldOut ?? 1, "held-out").map((doc) => ({
      ...doc,
      wording: "held-out" as const,
    })),
    ...buildExtractionSet(options.fresh ?? 1, "fresh").map((doc) => ({
      ...doc,
      wording: "fresh" as const,
    })),
    ...buildExtractionSet(options.unseen ?? 1, "unseen").map((doc) => ({
      ...doc,
      wording: "unseen" as const,
    })),
  ].filter((doc) => options.only?.(doc.id) ?? true);
  const mixed = buildMixedSet(options.mixed ?? 6);
  const files = renderDocuments(documents, formats, options.dir);
  const results: DocumentResult[] = [];
  for (const doc of documents) {
    for (const format of formats) {
      const bytes = files.get(`${doc.id}.${format}`);
      if (!bytes) continue;
      const { document } = await parseDocument({ bytes, mimeType: MIME_TYPES[format] });
      const [partition] = partitionDocument(document, "none", null);
      const { data } = extractStructured(partition, doc.schema, { provideCitations: true });
      const score = scoreFields(doc.expected, data);
      results.push({
        id: doc.id,
        wording: doc.wording,
        kind: doc.kind,
        layout: doc.layout,
        format,
        ...score,
        schemaErrors: validateAgainstSchema(doc.schema, data),
      });
    }
  }
  const byKind: Record<string, FieldCounts> = {};
  const byFormat: Record<string, FieldCounts> = {};
  const overall: FieldCounts = { tp: 0, fp: 0, fn: 0 };
  const heldOut: FieldCounts = { tp: 0, fp: 0, fn: 0 };
  const heldOutByKind: Record<string, FieldCounts> = {};
  const fresh: FieldCounts = { tp: 0, fp: 0, fn: 0 };
  const freshByKind: Record<string, FieldCounts> = {};
  const unseen: FieldCounts = { tp: 0, fp: 0, fn: 0 };
  const unseenByKind: Record<string, FieldCounts> = {};
  for (const result of results) {
    if (result.wording === "unseen") {
      unseenByKind[result.kind] ??= { tp: 0, fp: 0, fn: 0 };
      addCounts(unseenByKind[result.kind], result);
      addCounts(unseen, result);
      continue;
    }
    if (result.wording === "fresh") {
      freshByKind[result.kind] ??= { tp: 0, fp: 0, fn: 0 };
      addCounts(freshByKind[result.kind], result);
      addCounts(fresh, result);
      continue;
    }
    if (result.wording === "held-out") {
      heldOutByKind[result.kind] ??= { tp: 0, fp: 0, fn: 0 };
      addCounts(heldOutByKind[result.kind], result);
      addCounts(heldOut, result);
      continue;
    }
    byKind[result.kind] ??= { tp: 0, fp: 0, fn: 0 };
    byFormat[result.format] ??= { tp: 0, fp: 0, fn: 0 };
    addCounts(byKind[result.kind], result);
    addCounts(byFormat[result.format], result);
    addCounts(overall, result);
  }

  const pages: PageResult[] = [];
  const pageCountMismatches: string[] = [];
  if (mixed.length > 0) {
    const mixedFiles = renderDocuments(mixed, ["pdf"], `${options.dir}/mixed`);
    for (const doc of mixed) {
      const bytes = mixedFiles.get(`${doc.id}.pdf`);
      if (!bytes) continue;
      const { document } = await parseDocument({ bytes, mimeType: MIME_TYPES.pdf });
      if (document.pages.length !== doc.pages.length) {
        pageCountMismatches.push(`${doc.id}: ${document.pages.length} pages, ${doc.pages.length} written`);
        continue;
      }
      const classes = classifyPages(document, PAGE_CLASSES);
      doc.pages.forEach((expected, index) => {
        const page = index + 1;
        const predicted = classes.find((entry) => entry.page_numbers.includes(page))?.page_class ?? null;
        pages.push({ document: doc.id, page, expected, predicted });
      });
    }
  }
  return {
    documents: results,
    byKind,
    byFormat,
    overall,
    heldOut,
    heldOutByKind,
    fresh,
    freshByKind,
    unseen,
    unseenByKind,
    pages,
    pageCountMismatches,
  };
}

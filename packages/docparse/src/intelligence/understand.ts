/**
 * What runs after a parse: page classification, then structured extraction per schema and partition, then
 * enrichment. Each step runs offline (the deterministic functions of this folder) unless a model provider is
 * given for it; every provider call's tokens are counted per provider into `usage`.
 *
 * - Classification: offline `classifyPages`, or the classification provider asked page by page (the page's
 *   markdown, the classes with their descriptions) for one class or none, with a reason.
 * - Extraction: the pages of the extraction's `page_classes` (all kept pages without them), split by its
 *   `partition_strategy`; per partition, offline `extractStructured`, or the extraction's provider with the
 *   schema as constrained output, the extraction's prompt and the partition's markdown. A provider's answer is
 *   checked with `validateAgainstSchema`; an invalid one is asked for once more, with the problems named, and a
 *   second invalid answer fails the parse (an answer that does not fit the request's schema is never returned).
 *   With `provide_citations`, a provider's values are cited where the partition's text shows them.
 * - Enrichment: see `applyEnrichment`; with an enrichment provider its hooks write the summaries (and read
 *   raster charts when the provider has vision).
 */
import type { EnrichmentOptions, PageClassConfig, PartitionStrategy } from "@svc/contract";
import type { DocumentModel } from "../model.ts";
import type { ModelProvider, TokenUsage } from "../providers/provider.ts";
import { ProviderError, UsageMeter } from "../providers/provider.ts";
import { itemsToMarkdown } from "../views/markdown.ts";
import { classifyPages, type PageClassification } from "./classify.ts";
import { type Citation, extractStructured } from "./extract.ts";
import { groundCitations } from "./grounding.ts";
import { itemPage, type Partition, partitionDocument } from "./partition.ts";
import { type JsonSchema, validateAgainstSchema } from "./schema.ts";

/** One structured extraction of a request, defaults filled; `provider` null means offline. */
export interface ExtractionTask {
  schemaName: string;
  jsonSchema: JsonSchema;
  prompt: string | null;
  partitionStrategy: PartitionStrategy;
  pageClasses: string[] | null;
  provideCitations: boolean;
  provider: ModelProvider | null;
}

export interface UnderstandOptions {
  pageClassifications: PageClassConfig[] | null;
  extractions: ExtractionTask[] | null;
  enrichment: Required<EnrichmentOptions> | null;
  /** The parse's source, for enrichment (figures' images, page images). */
  source: { bytes: Uint8Array | null; mimeType: string };
  /** Pages the request kept (page_range); null keeps every page. */
  pages: number[] | null;
  classificationProvider: ModelProvider | null;
  enrichmentProvider: ModelProvider | null;
  signal?: AbortSignal;
}

/** One entry of ParseResult.structured_data. */
export interface StructuredDataEntry {
  schema_name: string;
  data: unknown;
  page_numbers: number[];
  citations?: Citation[];
}

export interface Understanding {
  page_classes: PageClassification[] | null;
  structured_data: StructuredDataEntry[] | null;
  /** Tokens per provider: classification and extraction, and enrichment (summaries, charts). */
  usage: { extraction: [string, TokenUsage][]; summarization: [string, TokenUsage][] };
}

/** A provider failed or kept answering outside the schema: the parse fails with this message. */
export class UnderstandingError extends Error {
  override name = "UnderstandingError";
}

const EXTRACTION_SYSTEM =
  "You extract structured data from a document. Use only what the document states; where it does not state a " +
  "value, give null. Never guess or invent values. Answer with the JSON the schema describes.";

const CLASSIFICATION_SYSTEM =
  "You classify one page of a document into at most one of the given page classes, by their descriptions. " +
  'Answer "none" when no class fits. Give a short reason naming the evidence on the page.';

/** Largest page or partition text sent to a provider, in characters. */
const MAX_PROMPT_TEXT = 200_000;

function clip(text: string): string {
  return text.length > MAX_PROMPT_TEXT
    ? `${text.slice(0, MAX_PROMPT_TEXT)}\n\n[… text cut at ${MAX_PROMPT_TEXT} characters]`
    : text;
}

function keptPages(model: DocumentModel, pages: number[] | null): number[] {
  const all = model.pages.map((page) => page.pageNumber);
  if (pages === null) return all;
  const wanted = new Set(pages);
  return all.filter((page) => wanted.has(page));
}

/** Runs classification, extraction and enrichment on a parsed model; enrichment annotates the model in place. */
export async function understandDocument(
  model: DocumentModel,
  options: UnderstandOptions,
): Promise<Understanding> {
  const extractionMeter = new UsageMeter();
  const summaryMeter = new UsageMeter();
  const pages = keptPages(model, options.pages);

  let pageClasses: PageClassification[] | null = null;
  if (options.pageClassifications?.length) {
    const provider = options.classificationProvider
      ? extractionMeter.wrap(options.classificationProvider)
      : null;
    pageClasses = provider
      ? await classifyWithProvider(model, options.pageClassifications, pages, provider, options.signal)
      : restrictToPages(classifyPages(model, options.pageClassifications), pages);
  }

  let structured: StructuredDataEntry[] | null = null;
  if (options.extractions?.length) {
    structured = [];
    for (const task of options.extractions) {
      const scope = task.pageClasses?.length
        ? pagesOfClasses(pageClasses ?? [], task.pageClasses, pages)
        : pages;
      const partitions = partitionDocument(model, task.partitionStrategy, scope);
      const provider = task.provider ? extractionMeter.wrap(task.provider) : null;
      for (const partition of partitions) {
        structured.push(await extractPartition(partition, task, provider, options.signal));
      }
    }
  }

  if (options.enrichment) {
    await enrich(
      model,
      options,
      options.enrichmentProvider ? summaryMeter.wrap(options.enrichmentProvider) : null,
    );
  }

  return {
    page_classes: pageClasses,
    structured_data: structured,
    usage: { extraction: extractionMeter.entries(), summarization: summaryMeter.entries() },
  };
}

/** The classes' page numbers limited to the kept pages; reasons only for the pages kept. */
function restrictToPages(classes: PageClassification[], pages: number[]): PageClassification[] {
  const kept = new Set(pages);
  return classes.map((entry) => {
    const out: PageClassification = {
      page_class: entry.page_class,
      page_numbers: entry.page_numbers.filter((page) => kept.has(page)),
    };
    if (entry.classification_reasons) {
      out.classification_reasons = Object.fromEntries(
        Object.entries(entry.classification_reasons).filter(([page]) => kept.has(Number(page))),
      );
    }
    return out;
  });
}

/** The kept pages classified as any of `classes`, in order. */
function pagesOfClasses(pageClasses: PageClassification[], classes: string[], pages: number[]): number[] {
  const wanted = new Set(classes.map((name) => name.trim()));
  const chosen = new Set<number>();
  for (const entry of pageClasses) {
    if (wanted.has(entry.page_class)) for (const page of entry.page_numbers) chosen.add(page);
  }
  return pages.filter((page) => chosen.has(page));
}

async function classifyWithProvider(
  model: DocumentModel,
  classes: PageClassConfig[],
  pages: number[],
  provider: ModelProvider,
  signal?: AbortSignal,
): Promise<PageClassification[]> {
  const names = classes.map((entry) => entry.name.trim());
  const result = names.map((name) => ({
    page_class: name,
    page_numbers: [] as number[],
    classification_reasons: {} as Record<string, string>,
  }));
  const schema: JsonSchema = {
    type: "object",
    properties: {
      page_class: { type: "string", enum: [...names, "none"] },
      reason: { type: "string" },
    },
    required: ["page_class", "reason"],
  };
  const classList = classes.map((entry) => `- ${entry.name.trim()}: ${entry.description}`).join("\n");
  for (const page of pages) {
    const items = model.items.filter((item) => !item.furniture && itemPage(item) === page);
    const markdown = itemsToMarkdown(items, { tableOutputMode: "markdown" });
    if (markdown.trim() === "") continue;
    const answer = await ask(
      provider,
      {
        system: CLASSIFICATION_SYSTEM,
        prompt: `Page classes:\n${classList}\n\nPage ${page}:\n\n${clip(markdown)}`,
        jsonSchema: schema,
        schemaName: "page_class",
        maxTokens: 300,
      },
      schema,
      signal,
    );
    const { page_class: chosen, reason } = (answer ?? {}) as { page_class?: unknown; reason?: unknown };
    const index = typeof chosen === "string" ? names.indexOf(chosen) : -1;
    if (index < 0) continue;
    result[index].page_numbers.push(page);
    if (typeof reason === "string" && reason.trim() !== "") {
      result[index].classification_reasons[String(page)] = reason.trim().slice(0, 1000);
    }
  }
  return result;
}

async function extractPartition(
  partition: Partition,
  task: ExtractionTask,
  provider: ModelProvider | null,
  signal?: AbortSignal,
): Promise<StructuredDataEntry> {
  const entry: StructuredDataEntry = {
    schema_name: task.schemaName,
    data: null,
    page_numbers: partition.pageNumbers,
  };
  if (!provider) {
    const { data, citations } = extractStructured(partition, task.jsonSchema, {
      provideCitations: task.provideCitations,
    });
    entry.data = data;
    if (task.provideCitations) entry.citations = citations;
    return entry;
  }
  const markdown = itemsToMarkdown(partition.items, { tableOutputMode: "markdown" });
  const instructions = task.prompt?.trim()
    ? task.prompt.trim()
    : `Extract the data of the schema "${task.schemaName}" from the document below.`;
  const pagesText = partition.pageNumbers.length ? ` (pages ${partition.pageNumbers.join(", ")})` : "";
  entry.data = await ask(
    provider,
    {
      system: EXTRACTION_SYSTEM,
      prompt: `${instructions}\n\nDocument${pagesText}, as markdown:\n\n${clip(markdown)}`,
      jsonSchema: task.jsonSchema,
      schemaName: task.schemaName,
    },
    task.jsonSchema,
    signal,
  );
  if (task.provideCitations) entry.citations = groundCitations(partition, entry.data);
  return entry;
}

/**
 * A schema answer from a provider that validates: asked once more with the problems named when the first answer
 * does not fit; a second misfit, or a provider failure, is an UnderstandingError.
 */
async function ask(
  provider: ModelProvider,
  request: Parameters<ModelProvider["complete"]>[0],
  schema: JsonSchema,
  signal?: AbortSignal,
): Promise<unknown> {
  let problems: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const prompt =
      attempt === 0
        ? request.prompt
        : `${request.prompt}\n\nYour previous answer did not fit the schema: ${problems.slice(0, 10).join("; ")}. Answer again with JSON that fits it.`;
    let json: unknown;
    try {
      json = (await provider.complete({ ...request, prompt }, signal)).json;
    } catch (error) {
      if (error instanceof ProviderError) throw new UnderstandingError(error.message);
      throw error;
    }
    problems =
      json === undefined || json === null || typeof json !== "object" || Array.isArray(json)
        ? ["the answer is not a JSON object"]
        : validateAgainstSchema(schema, json);
    if (problems.length === 0) return json;
  }
  throw new UnderstandingError(
    `model provider ${provider.name} answered twice with data that does not fit the schema ${request.schemaName ?? ""}: ${problems.slice(0, 5).join("; ")}`,
  );
}

/** Enrichment: wired to applyEnrichment once the enrichment module is in (see enrich.ts). */
async function enrich(
  _model: DocumentModel,
  _options: UnderstandOptions,
  _provider: ModelProvider | null,
): Promise<void> {}

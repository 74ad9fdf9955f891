/**
 * What runs after a parse: page classification, then structured extraction per schema and partition, then
 * enrichment. Each step runs offline (the deterministic functions of this folder) unless a model provider is
 * given for it; every provider call's tokens are counted per provider into `usage`.
 *
 * - Classification: offline `classifyPages`, or the classification provider asked page by page (the page's
 *   markdown, the classes with their descriptions) for one class or none, with a reason. Provider calls run
 *   PROVIDER_CONCURRENCY at a time (pages, or an extraction's partitions); results keep the document's order.
 * - Extraction: the pages of the extraction's `page_classes` (all kept pages without them), split by its
 *   `partition_strategy`; per partition, offline `extractStructured`, or the extraction's provider with the
 *   schema as constrained output, the extraction's prompt and the partition's markdown. A provider's answer is
 *   checked with `validateAgainstSchema`; an invalid one is asked for once more, with the problems named, and a
 *   second invalid answer fails the parse (an answer that does not fit the request's schema is never returned).
 *   With `provide_citations`, a provider's values are cited where the partition's text shows them. With
 *   `skip_ocr` and a vision provider, the pages of a PDF, an image or a slide deck go as pictures instead of
 *   their text (offline, `skip_ocr` changes nothing: the text is the parse's own).
 * - Enrichment: `applyEnrichment`; with an enrichment provider, its hooks (providerHooks) write the table and
 *   figure summaries (the request's prompts honoured) and, when the provider has vision, read charts drawn as
 *   pictures. A provider failure fails the parse.
 */
import type { EnrichmentOptions, PageClassConfig, PartitionStrategy } from "@svc/contract";
import type { ChartData, DocumentModel } from "../model.ts";
import type { ModelProvider, TokenUsage } from "../providers/provider.ts";
import { ProviderError, UsageMeter } from "../providers/provider.ts";
import { itemsToMarkdown } from "../views/markdown.ts";
import { classifyPages, type PageClassification } from "./classify.ts";
import { applyEnrichment, type EnrichmentHooks } from "./enrich.ts";
import { type Citation, extractStructured } from "./extract.ts";
import { groundCitations } from "./grounding.ts";
import { itemPage, type Partition, partitionDocument } from "./partition.ts";
import { partitionImages } from "./partition-images.ts";
import { type JsonSchema, validateAgainstSchema } from "./schema.ts";

/** One structured extraction of a request, defaults filled; `provider` null means offline. */
export interface ExtractionTask {
  schemaName: string;
  jsonSchema: JsonSchema;
  prompt: string | null;
  partitionStrategy: PartitionStrategy;
  pageClasses: string[] | null;
  provideCitations: boolean;
  /** With a vision provider and a PDF or image source: send the partition's pages as pictures, not its text. */
  skipOcr?: boolean;
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

/** Provider calls of one step in flight at once (pages classified, partitions extracted). */
const PROVIDER_CONCURRENCY = 4;

/** `fn` over the items with at most `limit` calls in flight; results in the items' order; the first error wins. */
async function mapInOrder<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

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
      // Without a page range or page classes, every item counts, those without a page too.
      const scope = task.pageClasses?.length
        ? pagesOfClasses(pageClasses ?? [], task.pageClasses, pages)
        : options.pages === null
          ? null
          : pages;
      const partitions = partitionDocument(model, task.partitionStrategy, scope);
      const provider = task.provider ? extractionMeter.wrap(task.provider) : null;
      const entries = await mapInOrder(partitions, provider ? PROVIDER_CONCURRENCY : 1, (partition) =>
        extractPartition(model, options.source, partition, task, provider, options.signal),
      );
      structured.push(...entries);
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
  const answers = await mapInOrder(pages, PROVIDER_CONCURRENCY, async (page) => {
    const items = model.items.filter((item) => !item.furniture && itemPage(item) === page);
    const markdown = itemsToMarkdown(items, { tableOutputMode: "markdown" });
    if (markdown.trim() === "") return null;
    return ask(
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
  });
  for (const [position, answer] of answers.entries()) {
    const page = pages[position];
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
  model: DocumentModel,
  source: UnderstandOptions["source"],
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
  const images =
    task.skipOcr && provider.vision ? await partitionImages(model, source, partition.pageNumbers) : null;
  const markdown = itemsToMarkdown(partition.items, { tableOutputMode: "markdown" });
  const instructions = task.prompt?.trim()
    ? task.prompt.trim()
    : `Extract the data of the schema "${task.schemaName}" from the document below.`;
  const pagesText = partition.pageNumbers.length ? ` (pages ${partition.pageNumbers.join(", ")})` : "";
  entry.data = await ask(
    provider,
    {
      system: EXTRACTION_SYSTEM,
      prompt: images
        ? `${instructions}\n\nThe document${pagesText} is in the pictures, one per page.`
        : `${instructions}\n\nDocument${pagesText}, as markdown:\n\n${clip(markdown)}`,
      images: images ?? undefined,
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

/** Enrichment through applyEnrichment; with a provider, its hooks replace the offline summaries and chart reading. */
async function enrich(
  model: DocumentModel,
  options: UnderstandOptions,
  provider: ModelProvider | null,
): Promise<void> {
  const enrichment = options.enrichment;
  if (!enrichment) return;
  const hooks = provider ? providerHooks(provider, options.signal) : {};
  try {
    await applyEnrichment(model, options.source, enrichment, hooks, { pages: options.pages });
  } catch (error) {
    if (error instanceof ProviderError) throw new UnderstandingError(error.message);
    throw error;
  }
}

const SUMMARY_SYSTEM =
  "You write short factual summaries of parts of documents. State only what the content shows; no speculation.";

const CHART_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    is_chart: { type: "boolean" },
    chart_type: { type: "string" },
    title: { type: "string" },
    categories: { type: "array", items: { type: "string" } },
    series: {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string" }, values: { type: "array", items: { type: "number" } } },
        required: ["name", "values"],
      },
    },
  },
  required: ["is_chart", "chart_type", "title", "categories", "series"],
};

/**
 * Enrichment hooks on a provider: table summaries from the table's markdown, figure summaries from the figure's
 * picture (vision) or its caption, and, with vision, a raster chart's data as constrained JSON.
 */
export function providerHooks(provider: ModelProvider, signal?: AbortSignal): EnrichmentHooks {
  const hooks: EnrichmentHooks = {
    async summarizeTable(_table, markdown, prompt) {
      const instructions =
        prompt?.trim() ||
        "Summarize this table in two or three sentences: what it lists, and its notable values.";
      const answer = await provider.complete(
        { system: SUMMARY_SYSTEM, prompt: `${instructions}\n\n${clip(markdown)}`, maxTokens: 400 },
        signal,
      );
      return answer.text.trim();
    },
    async summarizeFigure(figure, image, prompt) {
      const instructions = prompt?.trim() || "Summarize this figure in one or two sentences: what it shows.";
      const caption = figure.caption ? `\n\nCaption: ${figure.caption}` : "";
      const images = image && provider.vision ? [{ mimeType: "image/png", data: image }] : undefined;
      const answer = await provider.complete(
        { system: SUMMARY_SYSTEM, prompt: `${instructions}${caption}`, images, maxTokens: 300 },
        signal,
      );
      return answer.text.trim();
    },
  };
  if (provider.vision) {
    hooks.readChart = async (_figure, image) => {
      const answer = await ask(
        provider,
        {
          system: "You read the data of charts from pictures. Give only values the picture shows.",
          prompt:
            "If this picture is a chart, give its type, title, categories and each series' values; else is_chart false.",
          images: [{ mimeType: "image/png", data: image }],
          jsonSchema: CHART_SCHEMA,
          schemaName: "chart",
        },
        CHART_SCHEMA,
        signal,
      );
      return chartOf(answer);
    };
  }
  return hooks;
}

/** The chart a provider described, or null when it says the picture is not one. */
function chartOf(answer: unknown): ChartData | null {
  const chart = answer as {
    is_chart?: boolean | null;
    chart_type?: string | null;
    title?: string | null;
    categories?: (string | null)[] | null;
    series?: { name?: string | null; values?: (number | null)[] | null }[] | null;
  };
  if (chart.is_chart !== true || !Array.isArray(chart.series) || chart.series.length === 0) return null;
  return {
    chartType: chart.chart_type || "unknown",
    title: chart.title ?? null,
    categories: (chart.categories ?? []).map((category) => category ?? ""),
    series: chart.series.map((series, index) => ({
      name: series?.name ?? `Series ${index + 1}`,
      values: (series?.values ?? []).map((value) => (typeof value === "number" ? value : null)),
    })),
    origin: "vision",
  };
}

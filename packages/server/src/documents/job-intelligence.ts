import type { Page, PageClass, ParseUsage } from "@svc/contract";
import type { ParseViews, ProviderSettings, TokenUsage } from "@svc/docparse";
import type { JobKind, JobRequest, StoredResult } from "./jobs.ts";
import { type ModelProviders, resolveModelProvider } from "./model-providers.ts";
import type { IntelligenceResult, IntelligenceTask } from "./parse-threads.ts";

/**
 * What a job runs after its parse, with the providers it names resolved against this server's configuration;
 * null when it asks for nothing (no classification, no extraction, no enrichment); a message when a provider it
 * names is no longer configured (the job then fails with it).
 */
export function intelligenceTask(
  request: JobRequest,
  providers: ModelProviders,
): IntelligenceTask | null | string {
  const enrichment = request.enrichmentOptions;
  const enriches =
    enrichment.table_summarization ||
    enrichment.figure_summarization ||
    enrichment.chart_extraction ||
    enrichment.include_full_page_image;
  const classes = request.pageClassifications?.length ? request.pageClassifications : null;
  const options = request.structuredExtractionOptions?.length ? request.structuredExtractionOptions : null;
  if (!classes && !options && !enriches) return null;

  const used: Record<string, ProviderSettings> = {};
  const use = (name: string | null) => {
    if (name !== null) used[name] = providers.byName[name];
    return name;
  };
  const extractions: IntelligenceTask["extractions"] = [];
  for (const option of options ?? []) {
    try {
      extractions.push({ option, provider: use(resolveModelProvider(providers, option.model_provider)) });
    } catch (error) {
      return (error as Error).message;
    }
  }
  return {
    pageClassifications: classes,
    extractions: options ? extractions : null,
    enrichment,
    providers: used,
    classificationProvider: classes ? use(providers.classification) : null,
    enrichmentProvider: enriches ? use(providers.enrichment) : null,
  };
}

function sum(entries: [string, TokenUsage][]): TokenUsage {
  return entries.reduce(
    (total, [, usage]) => ({
      inputTokens: total.inputTokens + usage.inputTokens,
      outputTokens: total.outputTokens + usage.outputTokens,
    }),
    { inputTokens: 0, outputTokens: 0 },
  );
}

/**
 * The usage of a job: the parse's, plus the tokens of its provider calls: page transcriptions by a vision model
 * under `ocr_*`, classification and extraction under `extraction_*`, summaries and charts under
 * `summarization_*`, and each provider's total under `model_providers`.
 */
export function usageOf(
  views: ParseViews,
  intelligence: IntelligenceResult | null,
  ocr: [string, TokenUsage][] = [],
): ParseUsage {
  const usage: ParseUsage = { ...views.usage };
  if (ocr.length > 0) {
    const read = sum(ocr);
    usage.ocr_input_tokens_used = read.inputTokens;
    usage.ocr_output_tokens_used = read.outputTokens;
  }
  const { extraction, summarization } = intelligence?.usage ?? { extraction: [], summarization: [] };
  if (extraction.length > 0 || summarization.length > 0) {
    const extracted = sum(extraction);
    const summarized = sum(summarization);
    usage.extraction_input_tokens_used = extracted.inputTokens;
    usage.extraction_output_tokens_used = extracted.outputTokens;
    usage.summarization_input_tokens_used = summarized.inputTokens;
    usage.summarization_output_tokens_used = summarized.outputTokens;
  }
  if (ocr.length === 0 && extraction.length === 0 && summarization.length === 0) return usage;
  const byProvider: NonNullable<ParseUsage["model_providers"]> = {};
  for (const [name, tokens] of [...ocr, ...extraction, ...summarization]) {
    const total = byProvider[name] ?? { input_tokens: 0, output_tokens: 0 };
    total.input_tokens += tokens.inputTokens;
    total.output_tokens += tokens.outputTokens;
    byProvider[name] = total;
  }
  usage.model_providers = byProvider;
  return usage;
}

/** The result a job stores: the views, and for parse jobs the page classes and structured data (null when not asked). */
export function storedResultOf(
  kind: JobKind,
  views: ParseViews,
  intelligence: IntelligenceResult | null,
  ocrUsage: [string, TokenUsage][] = [],
): StoredResult {
  const pages =
    kind === "parse" && intelligence?.page_classes
      ? withPageReasons(views.pages, intelligence.page_classes)
      : views.pages;
  const stored: StoredResult = {
    pages,
    chunks: views.chunks,
    usage: usageOf(views, intelligence, ocrUsage),
  };
  if (views.merged_tables) stored.merged_tables = views.merged_tables;
  if (kind === "parse") {
    stored.page_classes = intelligence?.page_classes ?? null;
    stored.structured_data = intelligence?.structured_data ?? null;
  }
  return stored;
}

/**
 * The pages with `classification_reason` set where a page was put in a class: `<class>: <reason>` (the page's
 * entry in that class's classification_reasons, or the class alone).
 */
function withPageReasons(pages: Page[], classes: PageClass[]): Page[] {
  const reasons = new Map<number, string>();
  for (const entry of classes) {
    for (const page of entry.page_numbers) {
      const reason = entry.classification_reasons?.[String(page)];
      reasons.set(page, reason ? `${entry.page_class}: ${reason}` : entry.page_class);
    }
  }
  return pages.map((page) =>
    reasons.has(page.page_number) ? { ...page, classification_reason: reasons.get(page.page_number) } : page,
  );
}

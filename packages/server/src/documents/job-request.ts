import {
  checkParseRequest,
  type DatasetParseRequest,
  ENRICHMENT_OPTION_DEFAULTS,
  type EnrichmentOptions,
  type MimeType,
  type PageClassConfig,
  type ParseRequest,
  parsePageRange,
  ServiceError,
  STRUCTURED_EXTRACTION_DEFAULTS,
  type StructuredExtractionOptions,
} from "@svc/contract";
import { countTextPages, withParsingDefaults } from "@svc/docparse";
import type { DatasetSettings } from "./datasets.ts";
import type { JobKind, JobRequest, JobSource } from "./jobs.ts";

/** Every check of a request that needs no stored state; the first failure is thrown as a ServiceError (400). */
export function checkRequest(body: ParseRequest): void {
  const failure = checkParseRequest(body);
  if (failure) throw new ServiceError(failure.code, failure.message);
  if (body.raw_text && body.page_range) {
    // Raw text's pages are known now, so a page beyond them is refused before a job is queued.
    const pages = countTextPages(body.raw_text, body.mime_type ?? "text/plain");
    if (pages !== undefined) {
      const range = parsePageRange(body.page_range, pages);
      if (!Array.isArray(range)) throw new ServiceError(range.code, range.message);
    }
  }
}

/** The settings of a request or dataset with every default filled, as jobs record them. */
export function settingsWithDefaults(input: {
  parsing_options?: ParseRequest["parsing_options"];
  enrichment_options?: EnrichmentOptions;
  structured_extraction_options?: StructuredExtractionOptions[] | null;
  page_classifications?: PageClassConfig[] | null;
}): DatasetSettings {
  const enrichment = { ...ENRICHMENT_OPTION_DEFAULTS } as Required<EnrichmentOptions>;
  for (const [key, value] of Object.entries(input.enrichment_options ?? {})) {
    if (value !== undefined) (enrichment as Record<string, unknown>)[key] = value;
  }
  const extractions = input.structured_extraction_options?.length
    ? input.structured_extraction_options.map((option) => ({ ...STRUCTURED_EXTRACTION_DEFAULTS, ...option }))
    : null;
  return {
    parsing_options: withParsingDefaults(input.parsing_options),
    enrichment_options: enrichment,
    structured_extraction_options: extractions,
    page_classifications: input.page_classifications?.length ? input.page_classifications : null,
  };
}

function sourceOf(body: DatasetParseRequest): JobSource {
  if (body.file_id) return { type: "file_id", fileId: body.file_id };
  if (body.file_url) return { type: "file_url", url: body.file_url };
  return { type: "raw_text" };
}

/** The snapshot a job runs with: the source, page range and MIME type of the request and the given settings. */
export function jobRequest(kind: JobKind, body: DatasetParseRequest, settings: DatasetSettings): JobRequest {
  return {
    kind,
    source: sourceOf(body),
    pageRange: body.page_range ?? null,
    // MIME types are case-insensitive; the engine keys its backends by the lowercase form.
    mimeType: (body.mime_type?.toLowerCase() ?? null) as MimeType | null,
    parsingOptions: settings.parsing_options,
    enrichmentOptions: settings.enrichment_options,
    structuredExtractionOptions: kind === "read" ? null : settings.structured_extraction_options,
    pageClassifications: kind === "read" ? null : settings.page_classifications,
  };
}

/** The name a job reports: the request's file_name, the upload's name, or the last segment of the URL's path. */
export function urlFileName(url: string): string | null {
  try {
    const last = new URL(url).pathname.split("/").filter(Boolean).at(-1);
    return last ? decodeURIComponent(last).slice(0, 255) : null;
  } catch {
    return null;
  }
}

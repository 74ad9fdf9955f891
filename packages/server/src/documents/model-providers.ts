import {
  canonicalModelProvider,
  type ParsingOptions,
  ServiceError,
  type StructuredExtractionOptions,
} from "@svc/contract";
import { PROVIDER_DEFAULTS, type ProviderSettings } from "@svc/docparse";
import type { Config, ModelProviderConfig } from "../config.ts";

/**
 * The model providers this server may use, from its configuration: settings by name (API keys read from the
 * environment variables the configuration names), and which provider classifies pages and which enriches.
 * A request's `model_provider` resolves to one of these by name, after aliases are mapped to their canonical
 * names (`gpt-4o-mini` → `gpt_4o_mini`...); `tensorlake`, or no name, is the offline provider. A request's
 * `ocr_model` that names a configured provider has every page read from its image transcribed by it; without
 * that, `vision` (when set) transcribes the pages OCR reads with low confidence.
 */
export interface ModelProviders {
  byName: Record<string, ProviderSettings>;
  classification: string | null;
  enrichment: string | null;
  vision: string | null;
}

/** The offline provider's name: what a request leaves out, and what the usage of offline work is never under. */
export const OFFLINE_PROVIDER = "tensorlake";

export const NO_MODEL_PROVIDERS: ModelProviders = {
  byName: {},
  classification: null,
  enrichment: null,
  vision: null,
};

function settingsOf(config: ModelProviderConfig, env: NodeJS.ProcessEnv): ProviderSettings {
  return {
    kind: config.kind,
    baseUrl: config.baseUrl,
    model: config.model,
    apiKey: config.apiKeyEnv ? (env[config.apiKeyEnv] ?? null) : null,
    timeoutMs: (config.timeoutSecs ?? PROVIDER_DEFAULTS.timeoutMs / 1000) * 1000,
    retries: config.retries ?? PROVIDER_DEFAULTS.retries,
    vision: config.vision ?? PROVIDER_DEFAULTS.vision,
    maxTokens: config.maxTokens ?? PROVIDER_DEFAULTS.maxTokens,
  };
}

/** The providers of a loaded configuration (loadConfig has checked names and key variables). */
export function modelProvidersOf(
  config: Pick<Config, "modelProviders" | "classificationProvider" | "enrichmentProvider" | "visionProvider">,
  env: NodeJS.ProcessEnv = process.env,
): ModelProviders {
  const byName: Record<string, ProviderSettings> = {};
  for (const [name, provider] of Object.entries(config.modelProviders ?? {})) {
    byName[name] = settingsOf(provider, env);
  }
  return {
    byName,
    classification: config.classificationProvider,
    enrichment: config.enrichmentProvider,
    vision: config.visionProvider ?? null,
  };
}

/**
 * The configured provider a request's model_provider names, or null for the offline provider. A name with no
 * configured provider is a 400 INVALID_CONFIGURATION that names it.
 */
export function resolveModelProvider(
  providers: ModelProviders,
  requested: string | null | undefined,
): string | null {
  if (requested === undefined || requested === null || requested === OFFLINE_PROVIDER) return null;
  if (Object.hasOwn(providers.byName, requested)) return requested;
  const canonical = canonicalModelProvider(requested);
  if (Object.hasOwn(providers.byName, canonical)) return canonical;
  const configured = Object.keys(providers.byName);
  throw new ServiceError(
    "INVALID_CONFIGURATION",
    `model_provider ${JSON.stringify(requested)} is not configured on this server; use ${[OFFLINE_PROVIDER, ...configured].map((name) => JSON.stringify(name)).join(", ")} (see modelProviders in the server configuration)`,
  );
}

/** How a job's pages read from their image go to a vision model (docparse's VisionTranscription, by name). */
export interface VisionTask {
  provider: string;
  settings: ProviderSettings;
  pages: "low-confidence" | "every-page";
  required: boolean;
}

/**
 * The vision transcription of a job: every page with the provider its ocr_model names, else the low-confidence
 * pages with the server's visionProvider, else none (OCR only). An ocr_model naming a provider without vision is
 * a 400 INVALID_CONFIGURATION.
 */
export function visionTaskOf(
  providers: ModelProviders,
  parsing: Pick<ParsingOptions, "ocr_model"> | null | undefined,
): VisionTask | null {
  const named = parsing?.ocr_model;
  if (named && Object.hasOwn(providers.byName, named)) {
    const settings = providers.byName[named];
    if (!settings.vision) {
      throw new ServiceError(
        "INVALID_CONFIGURATION",
        `parsing_options.ocr_model ${JSON.stringify(named)} names a model provider that is not configured for images (vision: true in modelProviders)`,
      );
    }
    return { provider: named, settings, pages: "every-page", required: true };
  }
  if (providers.vision === null) return null;
  const settings = providers.byName[providers.vision];
  return { provider: providers.vision, settings, pages: "low-confidence", required: false };
}

/**
 * Every extraction's model_provider resolves (see resolveModelProvider), and an ocr_model naming a provider names
 * one with vision (see visionTaskOf); the first that does not is thrown.
 */
export function checkModelProviders(
  providers: ModelProviders,
  settings: {
    structured_extraction_options?: readonly Pick<StructuredExtractionOptions, "model_provider">[] | null;
    parsing_options?: Pick<ParsingOptions, "ocr_model"> | null;
  },
): void {
  visionTaskOf(providers, settings.parsing_options);
  for (const [index, option] of (settings.structured_extraction_options ?? []).entries()) {
    try {
      resolveModelProvider(providers, option.model_provider);
    } catch (error) {
      if (error instanceof ServiceError) {
        throw new ServiceError(
          "INVALID_CONFIGURATION",
          `structured_extraction_options[${index}].${error.message}`,
        );
      }
      throw error;
    }
  }
}

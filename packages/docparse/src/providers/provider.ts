/**
 * The one interface every model provider implements: a single completion, optionally constrained to a JSON schema
 * and optionally with images. The offline provider is not one of these: where no provider is configured, the
 * intelligence code runs its own offline functions instead (see intelligence/understand.ts).
 */

/** An image sent to a vision provider. */
export interface ProviderImage {
  /** `image/png`, `image/jpeg`... */
  mimeType: string;
  data: Uint8Array;
}

export interface CompletionRequest {
  system?: string;
  prompt: string;
  images?: ProviderImage[];
  /**
   * When given, the answer must be one JSON value of this schema: the provider asks for constrained output
   * (OpenAI `response_format: json_schema`, Anthropic a forced tool call) and returns it parsed in `json`.
   */
  jsonSchema?: Record<string, unknown>;
  /** A name for the schema (letters, digits, `_`, `-`), sent where the protocol names it. */
  schemaName?: string;
  maxTokens?: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface Completion {
  /** The answer's text (for a schema request, the JSON text). */
  text: string;
  /** With jsonSchema: the parsed answer (not yet validated against the schema; callers validate). */
  json?: unknown;
  usage: TokenUsage;
}

export interface ModelProvider {
  /** The configured name, as requests and usage name it. */
  readonly name: string;
  /** Whether the model reads images. */
  readonly vision: boolean;
  complete(request: CompletionRequest, signal?: AbortSignal): Promise<Completion>;
}

/**
 * A provider call that failed after its retries: the provider answered with an error, answered something that is
 * not its protocol's shape, or could not be reached in time. `status` is the last HTTP status, when there was one.
 */
export class ProviderError extends Error {
  override name = "ProviderError";
  readonly provider: string;
  readonly status: number | null;

  constructor(provider: string, message: string, status: number | null = null) {
    super(`model provider ${provider}: ${message}`);
    this.provider = provider;
    this.status = status;
  }
}

/** The settings of one configured provider, as the server's configuration gives them. */
export interface ProviderSettings {
  kind: "openai" | "anthropic";
  /** Base URL of the API, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1` (Ollama). */
  baseUrl: string;
  model: string;
  /** The key itself (the server reads it from the environment variable the config names); null for none. */
  apiKey: string | null;
  /** Longest wait for one HTTP attempt, in milliseconds. */
  timeoutMs: number;
  /** Attempts after the first on 429, 5xx and network errors. */
  retries: number;
  /** Whether the model reads images. */
  vision: boolean;
  /** Output tokens asked for when a request names none. */
  maxTokens: number;
}

export const PROVIDER_DEFAULTS = {
  timeoutMs: 120_000,
  retries: 3,
  vision: false,
  maxTokens: 4096,
} as const;

/** Tokens used per provider name, summed over the calls of one parse. */
export class UsageMeter {
  readonly #byProvider = new Map<string, TokenUsage>();

  add(provider: string, usage: TokenUsage): void {
    const total = this.#byProvider.get(provider) ?? { inputTokens: 0, outputTokens: 0 };
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    this.#byProvider.set(provider, total);
  }

  /** A provider that counts its usage into this meter. */
  wrap(provider: ModelProvider): ModelProvider {
    return {
      name: provider.name,
      vision: provider.vision,
      complete: async (request, signal) => {
        const completion = await provider.complete(request, signal);
        this.add(provider.name, completion.usage);
        return completion;
      },
    };
  }

  get(provider: string): TokenUsage | undefined {
    return this.#byProvider.get(provider);
  }

  entries(): [string, TokenUsage][] {
    return [...this.#byProvider.entries()].map(([name, usage]) => [name, { ...usage }]);
  }
}

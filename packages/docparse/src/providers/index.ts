import { AnthropicProvider } from "./anthropic.ts";
import { OpenAiProvider } from "./openai.ts";
import type { ModelProvider, ProviderSettings } from "./provider.ts";
import type { RetryPolicy } from "./provider-http.ts";

export { ANTHROPIC_VERSION, AnthropicProvider } from "./anthropic.ts";
export { jsonOfAnswer, schemaForModel } from "./model-schema.ts";
export { OpenAiProvider } from "./openai.ts";
export * from "./provider.ts";
export { type RetryPolicy, retryAfterMs } from "./provider-http.ts";

/** The client of a configured provider, by its kind. */
export function createProvider(
  name: string,
  settings: ProviderSettings,
  policy: Partial<RetryPolicy> = {},
): ModelProvider {
  switch (settings.kind) {
    case "openai":
      return new OpenAiProvider(name, settings, policy);
    case "anthropic":
      return new AnthropicProvider(name, settings, policy);
  }
}

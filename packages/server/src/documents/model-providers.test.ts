import assert from "node:assert/strict";
import { test } from "node:test";
import type { ServiceError } from "@svc/contract";
import { loadConfig } from "../config.ts";
import { checkModelProviders, modelProvidersOf, resolveModelProvider } from "./model-providers.ts";

const env = {
  SVC_MODEL_PROVIDERS: JSON.stringify({
    sonnet: {
      kind: "anthropic",
      baseUrl: "https://api.anthropic.com/v1",
      model: "claude",
      apiKeyEnv: "KEY_A",
      timeoutSecs: 30,
    },
    gpt_4o_mini: { kind: "openai", baseUrl: "http://127.0.0.1:8000/v1", model: "qwen", vision: true },
  }),
  KEY_A: "secret-a",
  SVC_CLASSIFICATION_PROVIDER: "gpt_4o_mini",
};

test("configured providers: settings with defaults, the key read from its variable", () => {
  const providers = modelProvidersOf(loadConfig({ env }), env);
  assert.deepEqual(providers.byName.sonnet, {
    kind: "anthropic",
    baseUrl: "https://api.anthropic.com/v1",
    model: "claude",
    apiKey: "secret-a",
    timeoutMs: 30_000,
    retries: 3,
    vision: false,
    maxTokens: 4096,
  });
  assert.equal(providers.byName.gpt_4o_mini.apiKey, null);
  assert.equal(providers.byName.gpt_4o_mini.vision, true);
  assert.equal(providers.classification, "gpt_4o_mini");
  assert.equal(providers.enrichment, null);
});

test("model_provider names: aliases map to the canonical names; tensorlake and no name are offline", () => {
  const providers = modelProvidersOf(loadConfig({ env }), env);
  assert.equal(resolveModelProvider(providers, undefined), null);
  assert.equal(resolveModelProvider(providers, "tensorlake"), null);
  assert.equal(resolveModelProvider(providers, "claude-3-5-sonnet-latest"), "sonnet");
  assert.equal(resolveModelProvider(providers, "gpt4o_mini"), "gpt_4o_mini");
  assert.equal(resolveModelProvider(providers, "gpt-4o-mini"), "gpt_4o_mini");
  assert.throws(
    () => resolveModelProvider(providers, "gemini3"),
    (error: ServiceError) =>
      error.code === "INVALID_CONFIGURATION" &&
      /"gemini3" is not configured on this server; use "tensorlake", "sonnet", "gpt_4o_mini"/.test(
        error.message,
      ),
  );
  assert.throws(
    () =>
      checkModelProviders(providers, {
        structured_extraction_options: [{ model_provider: "sonnet" }, { model_provider: "gpt5" }],
      }),
    /structured_extraction_options\[1\]\.model_provider "gpt5"/,
  );
  assert.doesNotThrow(() => checkModelProviders(providers, { structured_extraction_options: null }));
});

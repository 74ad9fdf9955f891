import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ConfigError, loadConfig, options } from "./config.ts";

test("the README's configuration table lists every option with its variable, flag and default", () => {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  for (const [key, option] of Object.entries(options)) {
    const row = readme.split("\n").find((line) => line.startsWith(`| ${key} |`));
    assert.ok(row, `README has no row for ${key}`);
    assert.ok(row.includes(`\`${option.env}\``), `${key}: ${option.env}`);
    assert.ok(row.includes(`\`${option.flag}\``), `${key}: ${option.flag}`);
    const shown = option.default === null ? "unset" : `\`${option.default}\``;
    assert.ok(row.includes(shown), `${key}: default ${shown}`);
  }
});

test("precedence: overrides, flags, environment, defaults; bad values name the option and its source", () => {
  const env = { SVC_PORT: "9000", SVC_PROXY_DOMAIN: "sbx.example" };
  assert.equal(loadConfig({ env }).port, 9000);
  assert.equal(loadConfig({ env, argv: ["--port", "9100"] }).port, 9100);
  assert.equal(loadConfig({ env, argv: ["--port=9100"], overrides: { port: 9200 } }).port, 9200);
  assert.equal(loadConfig({ env: {} }).proxyDomain, "sandbox.localhost");
  assert.equal(loadConfig({ env }).proxyDomain, "sbx.example");
  assert.throws(
    () => loadConfig({ env: { SVC_PORT: "eighty" } }),
    (e) => e instanceof ConfigError && /port \(SVC_PORT\)/.test(e.message),
  );
  assert.throws(() => loadConfig({ env: {}, argv: ["--nope", "1"] }), /unknown option --nope/);
  assert.throws(() => loadConfig({ env: { SVC_DATABASE_URL: "mysql://x" } }), /databaseUrl/);
});

test("model providers: JSON from the environment, names checked, key variables required", () => {
  const providers = {
    gpt_4o_mini: { kind: "openai", baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.2" },
    sonnet: {
      kind: "anthropic",
      baseUrl: "https://api.anthropic.com/v1",
      model: "claude-sonnet-4",
      apiKeyEnv: "ANTHROPIC_KEY",
    },
  };
  const env = {
    SVC_MODEL_PROVIDERS: JSON.stringify(providers),
    ANTHROPIC_KEY: "sk-ant",
    SVC_ENRICHMENT_PROVIDER: "sonnet",
  };
  const config = loadConfig({ env });
  assert.deepEqual(config.modelProviders, providers);
  assert.equal(config.enrichmentProvider, "sonnet");
  assert.equal(config.classificationProvider, null);
  assert.equal(loadConfig({ env: {} }).modelProviders, null);
  assert.throws(
    () => loadConfig({ env: { ...env, ANTHROPIC_KEY: "" } }),
    /modelProviders.sonnet: the environment variable ANTHROPIC_KEY is not set/,
  );
  assert.throws(
    () => loadConfig({ env: { ...env, SVC_CLASSIFICATION_PROVIDER: "gemini3" } }),
    /classificationProvider names "gemini3", which modelProviders does not define/,
  );
  assert.throws(
    () => loadConfig({ env: { SVC_MODEL_PROVIDERS: JSON.stringify({ tensorlake: providers.gpt_4o_mini }) } }),
    /tensorlake is the offline provider/,
  );
  assert.throws(
    () =>
      loadConfig({
        env: { SVC_MODEL_PROVIDERS: JSON.stringify({ x: { ...providers.gpt_4o_mini, kind: "gemini" } }) },
      }),
    /modelProviders \(SVC_MODEL_PROVIDERS\)/,
  );
  assert.throws(() => loadConfig({ env: { SVC_MODEL_PROVIDERS: "{not json" } }), /modelProviders/);
});

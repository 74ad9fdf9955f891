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

import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../config.ts";
import { ALL_ROLES, rolesOf } from "./roles.ts";

const PG = "postgres://svc:svc@db.example/svc";

test("roles: all by default on SQLite; a subset runs only with a PostgreSQL URL", () => {
  assert.deepEqual([...rolesOf(loadConfig({ env: {} }))], [...ALL_ROLES]);
  const subset = loadConfig({ env: { SVC_DATABASE_URL: PG }, argv: ["--roles", "executor,worker"] });
  assert.deepEqual([...rolesOf(subset)].sort(), ["executor", "worker"]);
  assert.throws(
    () => loadConfig({ env: {}, argv: ["--roles", "api,proxy"] }),
    (e) => e instanceof ConfigError && /needs a shared PostgreSQL store/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ env: { SVC_DATABASE_URL: PG, SVC_ROLES: "api,gpu" } }),
    (e) => e instanceof ConfigError && /unknown role "gpu"/.test(e.message),
  );
  assert.throws(() => loadConfig({ env: { SVC_DATABASE_URL: PG }, argv: ["--roles", ""] }), ConfigError);
});

test("an executor host listening on every address must say where other hosts reach its relay", () => {
  const env = { SVC_DATABASE_URL: PG, SVC_RELAY_HOST: "0.0.0.0" };
  assert.throws(() => loadConfig({ env }), /set relayAdvertise/);
  assert.equal(loadConfig({ env, argv: ["--relay-advertise", "10.0.0.7"] }).relayAdvertise, "10.0.0.7");
  // A host without the executor role runs no relay.
  assert.equal(loadConfig({ env, argv: ["--roles", "api,proxy"] }).relayHost, "0.0.0.0");
  assert.throws(() => loadConfig({ env: { SVC_HOST_ID: "bad id" } }), /hostId/);
});

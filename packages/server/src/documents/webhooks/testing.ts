import { createHmac, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import pg from "pg";
import { openStore, type Store } from "../../store/store.ts";

/** A database that stores can be opened on, several times (as several servers would), removed at the end. */
export interface StoreTarget {
  open(now?: () => number): Promise<Store>;
  dispose(): Promise<void>;
}

async function sqliteTarget(): Promise<StoreTarget> {
  const dataDir = await mkdtemp(join(tmpdir(), "svc-webhooks-test-"));
  return {
    open: (now) => openStore({ dataDir, now }),
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** A schema of its own, chosen through the URL's search_path, so runs never see each other's rows. */
async function postgresTarget(baseUrl: string): Promise<StoreTarget> {
  const schema = `svc_test_${process.pid}_${randomBytes(6).toString("hex")}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE SCHEMA ${schema}`);
  const url = new URL(baseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    open: (now) => openStore({ databaseUrl: url.toString(), now }),
    dispose: () => run(`DROP SCHEMA ${schema} CASCADE`),
  };
}

/** Runs `suite` on SQLite, and on PostgreSQL when SVC_TEST_DATABASE_URL is set (required in CI). */
export function onEveryStore(name: string, suite: (makeTarget: () => Promise<StoreTarget>) => void): void {
  describe(`${name} on SQLite`, () => suite(sqliteTarget));
  const databaseUrl = process.env.SVC_TEST_DATABASE_URL;
  if (databaseUrl) {
    describe(`${name} on PostgreSQL`, () => suite(() => postgresTarget(databaseUrl)));
  } else if (process.env.CI === "true") {
    test(`${name} on PostgreSQL`, () => {
      throw new Error("SVC_TEST_DATABASE_URL must be set in CI");
    });
  } else {
    test(`${name} on PostgreSQL`, { skip: "SVC_TEST_DATABASE_URL is not set" }, () => {});
  }
}

/**
 * Standard Webhooks verification written from the scheme, apart from the service's own code: HMAC-SHA256 of
 * `${id}.${timestamp}.${body}` keyed by the base64-decoded part of the `whsec_` secret, compared with each
 * `v1,<base64>` entry of `webhook-signature`; the timestamp within five minutes.
 */
export function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
): boolean {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string") return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return signatures.split(" ").some((entry) => entry === `v1,${expected}`);
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { API_KEY_PREFIX, ServiceError } from "@svc/contract";
import pg from "pg";
import { hashApiKey } from "./api-keys.ts";
import { migrations } from "./migrations.ts";
import { openStore, type Store, type StoreOptions } from "./store.ts";

/** One database that stores can be opened on, several times, and that is removed at the end. */
interface StoreTarget {
  open(options?: Pick<StoreOptions, "now">): Promise<Store>;
  dispose(): Promise<void>;
}

async function sqliteTarget(): Promise<StoreTarget> {
  const dataDir = await mkdtemp(join(tmpdir(), "svc-store-test-"));
  return {
    open: (options) => openStore({ ...options, dataDir }),
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** A schema of its own per target, chosen through the URL's search_path, so runs never see each other's rows. */
async function postgresTarget(baseUrl: string): Promise<StoreTarget> {
  const schema = `svc_test_${process.pid}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    open: (options) => openStore({ ...options, databaseUrl: url.toString() }),
    async dispose() {
      const cleanup = new pg.Client({ connectionString: baseUrl });
      await cleanup.connect();
      try {
        await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

async function rejectsWithCode(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => error instanceof ServiceError && error.code === code);
}

/** The behaviour every store engine must have. */
function storeContract(engine: string, makeTarget: () => Promise<StoreTarget>): void {
  describe(`store on ${engine}`, () => {
    let target: StoreTarget;
    let store: Store;
    let clock = Date.UTC(2026, 0, 1);
    const now = () => clock;

    before(async () => {
      target = await makeTarget();
      store = await target.open({ now });
    });
    after(async () => {
      await store?.close();
      await target?.dispose();
    });

    describe("migrations", () => {
      it("records every migration once, at the newest version", async () => {
        const rows = await store.db.query<{ version: number; name: string }>(
          "SELECT version, name FROM schema_migrations ORDER BY version",
        );
        assert.deepEqual(
          rows.map((row) => row.version),
          migrations.map((migration) => migration.version),
        );
        assert.equal(typeof rows[0].version, "number");
        assert.equal(rows.at(-1)?.version, migrations.at(-1)?.version);
      });

      it("opens an already migrated database again without applying anything", async () => {
        const again = await target.open();
        try {
          await again.settings.set("reopened", "yes");
          assert.equal(await store.settings.get("reopened"), "yes");
          const [{ count }] = await again.db.query<{ count: number }>(
            "SELECT COUNT(*) AS count FROM schema_migrations",
          );
          assert.equal(Number(count), migrations.length);
        } finally {
          await again.close();
        }
      });

      it("applies each migration once when stores open a fresh database together", async () => {
        const fresh = await makeTarget();
        try {
          const stores = await Promise.all([fresh.open(), fresh.open(), fresh.open()]);
          const rows = await stores[0].db.query<{ version: number }>("SELECT version FROM schema_migrations");
          assert.equal(rows.length, migrations.length);
          await Promise.all(stores.map((opened) => opened.close()));
        } finally {
          await fresh.dispose();
        }
      });
    });

    describe("projects", () => {
      it("ensures an organization once", async () => {
        const first = await store.projects.ensureOrganization("acme");
        const second = await store.projects.ensureOrganization("acme");
        assert.match(first.id, /^org_[a-z2-7]{26}$/);
        assert.deepEqual(second, first);
      });

      it("creates, finds by id and name, and lists projects", async () => {
        const org = await store.projects.ensureOrganization("acme");
        const project = await store.projects.create(org.id, "alpha");
        assert.match(project.id, /^proj_[a-z2-7]{26}$/);
        assert.deepEqual(project, {
          id: project.id,
          name: "alpha",
          organization_id: org.id,
          created_at: new Date(clock).toISOString(),
        });
        assert.deepEqual(await store.projects.get(project.id), project);
        assert.deepEqual(await store.projects.get("alpha"), project);
        assert.deepEqual(await store.projects.get("alpha", org.id), project);
        assert.equal(await store.projects.get("missing"), null);
        assert.ok((await store.projects.list()).some((listed) => listed.id === project.id));
        assert.deepEqual(await store.projects.list(org.id), [project]);
      });

      it("refuses a duplicate name in one organization with PROJECT_EXISTS", async () => {
        const org = await store.projects.ensureOrganization("acme");
        await store.projects.create(org.id, "beta");
        await rejectsWithCode(store.projects.create(org.id, "beta"), "PROJECT_EXISTS");
        const other = await store.projects.ensureOrganization("other");
        const sameName = await store.projects.create(other.id, "beta");
        assert.equal(sameName.organization_id, other.id);
        assert.equal((await store.projects.get("beta", other.id))?.id, sameName.id);
      });
    });

    describe("api keys", () => {
      let projectId: string;
      let organizationId: string;
      before(async () => {
        const org = await store.projects.ensureOrganization("keys-org");
        organizationId = org.id;
        projectId = (await store.projects.create(org.id, "keys")).id;
      });

      it("creates a key that authenticates", async () => {
        const { info, key } = await store.apiKeys.create({ projectId, name: "ci" });
        assert.ok(key.startsWith(API_KEY_PREFIX));
        assert.equal(key.length, API_KEY_PREFIX.length + 43);
        assert.match(info.id, /^key_[a-z2-7]{26}$/);
        assert.deepEqual(info, {
          id: info.id,
          name: "ci",
          project_id: projectId,
          organization_id: organizationId,
          prefix: key.slice(0, 16),
          created_at: new Date(clock).toISOString(),
          last_used_at: null,
        });
        assert.deepEqual(await store.apiKeys.authenticate(key), { id: info.id, projectId, organizationId });
      });

      it("authenticates nothing else", async () => {
        const { key } = await store.apiKeys.create({ projectId });
        const random = key.slice(API_KEY_PREFIX.length);
        const other = API_KEY_PREFIX + randomBytes(32).toString("base64url");
        const lastChar = key.endsWith("A") ? "B" : "A";
        for (const wrong of [
          other,
          key.slice(0, -1) + lastChar,
          `${key}x`,
          key.slice(0, -1),
          "",
          "garbage",
          `svc_admin_${random}`,
          random,
          ` ${key}`,
          key.toUpperCase(),
        ]) {
          assert.equal(
            await store.apiKeys.authenticate(wrong),
            null,
            `authenticated ${JSON.stringify(wrong)}`,
          );
        }
        assert.equal(await store.apiKeys.authenticate(undefined as unknown as string), null);
      });

      it("stores the key's SHA-256 only", async () => {
        const { info, key } = await store.apiKeys.create({ projectId });
        const [row] = await store.db.query<Record<string, unknown>>("SELECT * FROM api_keys WHERE id = ?", [
          info.id,
        ]);
        const random = key.slice(API_KEY_PREFIX.length);
        for (const value of Object.values(row)) {
          assert.ok(!String(value).includes(random), "a column holds the key's random part");
        }
        assert.equal(row.key_hash, hashApiKey(key));
        assert.match(String(row.key_hash), /^[0-9a-f]{64}$/);
      });

      it("records last use at most once a minute", async () => {
        const { info, key } = await store.apiKeys.create({ projectId });
        const lastUsed = async () =>
          (await store.apiKeys.list(projectId)).find((k) => k.id === info.id)?.last_used_at;
        const start = clock;
        await store.apiKeys.authenticate(key);
        assert.equal(await lastUsed(), new Date(start).toISOString());
        clock += 30_000;
        await store.apiKeys.authenticate(key);
        assert.equal(await lastUsed(), new Date(start).toISOString());
        clock += 30_000;
        await store.apiKeys.authenticate(key);
        assert.equal(await lastUsed(), new Date(clock).toISOString());
      });

      it("lists the keys that are not deleted, of one project or all", async () => {
        const org = await store.projects.ensureOrganization("keys-org");
        const listedProject = (await store.projects.create(org.id, "listed")).id;
        const kept = await store.apiKeys.create({ projectId: listedProject, name: "kept" });
        const gone = await store.apiKeys.create({ projectId: listedProject, name: "gone" });
        assert.equal(await store.apiKeys.delete(gone.info.id), true);
        assert.deepEqual(await store.apiKeys.list(listedProject), [kept.info]);
        const all = await store.apiKeys.list();
        assert.ok(all.some((k) => k.id === kept.info.id));
        assert.ok(!all.some((k) => k.id === gone.info.id));
        assert.ok(all.some((k) => k.project_id === projectId));
      });

      it("deletes a key so it never authenticates again", async () => {
        const { info, key } = await store.apiKeys.create({ projectId });
        assert.notEqual(await store.apiKeys.authenticate(key), null);
        assert.equal(await store.apiKeys.delete(info.id), true);
        assert.equal(await store.apiKeys.authenticate(key), null);
        assert.equal(await store.apiKeys.delete(info.id), false);
        assert.equal(await store.apiKeys.delete("key_unknown"), false);
      });

      it("refuses a key for an unknown project with PROJECT_NOT_FOUND", async () => {
        await rejectsWithCode(store.apiKeys.create({ projectId: "proj_unknown" }), "PROJECT_NOT_FOUND");
      });
    });

    describe("transactions", () => {
      it("commit, and roll back when the callback throws", async () => {
        const result = await store.db.transaction(async (tx) => {
          await tx.execute("INSERT INTO settings (key, value) VALUES (?, ?)", ["tx-commit", "1"]);
          return "done";
        });
        assert.equal(result, "done");
        assert.equal(await store.settings.get("tx-commit"), "1");

        const failure = new Error("boom");
        await assert.rejects(
          store.db.transaction(async (tx) => {
            await tx.execute("INSERT INTO settings (key, value) VALUES (?, ?)", ["tx-rollback", "1"]);
            throw failure;
          }),
          (error) => error === failure,
        );
        assert.equal(await store.settings.get("tx-rollback"), null);
      });

      it("roll back a nested transaction alone", async () => {
        await store.db.transaction(async (tx) => {
          await tx.execute("INSERT INTO settings (key, value) VALUES (?, ?)", ["outer", "1"]);
          await assert.rejects(
            tx.transaction(async (inner) => {
              await inner.execute("INSERT INTO settings (key, value) VALUES (?, ?)", ["inner", "1"]);
              throw new Error("inner");
            }),
          );
        });
        assert.equal(await store.settings.get("outer"), "1");
        assert.equal(await store.settings.get("inner"), null);
      });

      it("keep uncommitted rows from other callers", async () => {
        let inside!: () => void;
        const entered = new Promise<void>((resolve) => {
          inside = resolve;
        });
        const running = store.db
          .transaction(async (tx) => {
            await tx.execute("INSERT INTO settings (key, value) VALUES (?, ?)", ["uncommitted", "1"]);
            inside();
            await sleep(50);
            throw new Error("abort");
          })
          .catch(() => "rolled back");
        await entered;
        assert.equal(await store.settings.get("uncommitted"), null);
        assert.equal(await running, "rolled back");
      });

      it("serialize read-modify-write on a locked row", async () => {
        await store.settings.set("counter", "0");
        // SQLite transactions hold the database; PostgreSQL needs the row lock.
        const forUpdate = store.db.dialect === "postgres" ? " FOR UPDATE" : "";
        const increment = () =>
          store.db.transaction(async (tx) => {
            const [row] = await tx.query<{ value: string }>(
              `SELECT value FROM settings WHERE key = ?${forUpdate}`,
              ["counter"],
            );
            await sleep(20);
            await tx.execute("UPDATE settings SET value = ? WHERE key = ?", [
              String(Number(row.value) + 1),
              "counter",
            ]);
          });
        await Promise.all([increment(), increment(), increment(), increment()]);
        assert.equal(await store.settings.get("counter"), "4");
      });

      it("refuse a transaction handle used after its transaction", async () => {
        const leaked = await store.db.transaction(async (tx) => tx);
        await assert.rejects(leaked.query("SELECT 1"), /transaction has ended/);
      });
    });

    describe("settings", () => {
      it("upserts", async () => {
        assert.equal(await store.settings.get("greeting"), null);
        await store.settings.set("greeting", "hello");
        assert.equal(await store.settings.get("greeting"), "hello");
        await store.settings.set("greeting", "bye");
        assert.equal(await store.settings.get("greeting"), "bye");
      });
    });
  });
}

storeContract("SQLite", sqliteTarget);

const databaseUrl = process.env.SVC_TEST_DATABASE_URL;
if (databaseUrl) {
  storeContract("PostgreSQL", () => postgresTarget(databaseUrl));
} else if (process.env.CI === "true") {
  test("store on PostgreSQL", () => {
    throw new Error("SVC_TEST_DATABASE_URL must be set in CI");
  });
} else {
  test("store on PostgreSQL", {
    skip: "SVC_TEST_DATABASE_URL is not set: set it to a postgres:// URL to run the PostgreSQL suite",
  }, () => {});
}

test("store in memory", async () => {
  const store = await openStore({ dataDir: ":memory:" });
  try {
    assert.equal(store.db.dialect, "sqlite");
    await store.settings.set("k", "v");
    assert.equal(await store.settings.get("k"), "v");
  } finally {
    await store.close();
  }
});

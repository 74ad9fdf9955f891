import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Store } from "../store/store.ts";
import {
  type BlobStore,
  BlobTooLargeError,
  databaseBlobStore,
  diskBlobStore,
  POSTGRES_CHUNK_BYTES,
} from "./blob-store.ts";
import { onEveryStore, type StoreTarget } from "./webhooks/testing.ts";

async function* chunks(data: Uint8Array, size = 64 * 1024): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.byteLength; at += size) yield data.subarray(at, at + size);
}

/** The behaviour every blob store has. */
function blobContract(open: () => Promise<BlobStore>, leftovers: () => Promise<number>): void {
  test("writes a stream, reads it back, reports size and SHA-256, deletes it", async () => {
    const blobs = await open();
    const data = randomBytes(POSTGRES_CHUNK_BYTES * 2 + 12_345);
    const stored = await blobs.put(chunks(data), { maxBytes: data.byteLength });
    assert.match(stored.key, /^blob_[a-z2-7]+$/);
    assert.equal(stored.size, data.byteLength);
    assert.equal(stored.sha256, createHash("sha256").update(data).digest("hex"));
    assert.deepEqual(Buffer.from((await blobs.read(stored.key)) ?? []), data);
    await blobs.delete(stored.key);
    assert.equal(await blobs.read(stored.key), undefined);
    await blobs.delete(stored.key);
  });

  test("stops past maxBytes and keeps nothing of the partial write", async () => {
    const blobs = await open();
    const before = await leftovers();
    await assert.rejects(blobs.put(chunks(randomBytes(300_000)), { maxBytes: 200_000 }), BlobTooLargeError);
    assert.equal(await leftovers(), before);
  });

  test("an empty stream is an empty blob", async () => {
    const blobs = await open();
    const stored = await blobs.put(chunks(new Uint8Array()), { maxBytes: 10 });
    assert.equal(stored.size, 0);
    assert.equal((await blobs.read(stored.key))?.byteLength, 0);
  });
}

describe("disk blob store", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "svc-blobs-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));
  blobContract(
    async () => diskBlobStore(dir),
    async () => (await readdir(path.join(dir, "tmp")).catch(() => [])).length,
  );
  test("refuses keys that are not blob ids", async () => {
    await assert.rejects(diskBlobStore(dir).read("../../etc/passwd"), /not a blob key/);
  });
});

onEveryStore("database blob store", (makeTarget) => {
  let target: StoreTarget;
  let store: Store;
  before(async () => {
    target = await makeTarget();
    store = await target.open();
  });
  after(async () => {
    await store?.close();
    await target?.dispose();
  });
  const count = async () =>
    Number((await store.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM blob_chunks"))[0].n) +
    Number((await store.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM blobs"))[0].n);
  blobContract(async () => databaseBlobStore(store.db), count);

  test("sweep removes incomplete blobs left by a dead process", async () => {
    await store.db.execute(
      "INSERT INTO blobs (blob_key, size, complete, created_at) VALUES ('blob_dead', 0, 0, 0)",
    );
    await store.db.execute("INSERT INTO blob_chunks (blob_key, seq, data) VALUES ('blob_dead', 0, ?)", [
      new Uint8Array([1]),
    ]);
    const before = await count();
    await databaseBlobStore(store.db).sweep(1000);
    assert.equal(await count(), before - 2);
  });
});

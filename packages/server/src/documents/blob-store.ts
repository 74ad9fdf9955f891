import { createHash } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../store/db.ts";
import { newId } from "../store/ids.ts";

/**
 * Where uploaded files' bytes live: files on local disk (the default), or chunked BYTEA rows when the store is
 * PostgreSQL, so every host of a cluster reads the same bytes. A blob is written from a stream, never held whole.
 */
export interface BlobStore {
  /** Writes the stream as a new blob. Past `maxBytes` it stops reading, removes what it wrote, and throws BlobTooLargeError. */
  put(source: AsyncIterable<Uint8Array>, options: { maxBytes: number }): Promise<StoredBlob>;
  /** The whole blob; undefined when there is none under the key. */
  read(key: string): Promise<Uint8Array | undefined>;
  /** Removes a blob; a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Removes partial writes left by a process that died while uploading, older than `olderThanMs`. */
  sweep(olderThanMs: number): Promise<void>;
}

export interface StoredBlob {
  key: string;
  size: number;
  /** Hex SHA-256 of the content. */
  sha256: string;
}

export class BlobTooLargeError extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`The file is larger than the limit of ${maxBytes} bytes`);
    this.name = "BlobTooLargeError";
    this.maxBytes = maxBytes;
  }
}

/** Keys are ids of our own (`blob_` and base32), so they are safe as file names. */
function checkKey(key: string): void {
  if (!/^blob_[a-z2-7]+$/.test(key)) throw new Error(`not a blob key: ${key}`);
}

/** Blobs as files under `dir`: `dir/<2 characters>/<key>`, written to `dir/tmp` first and renamed when complete. */
export function diskBlobStore(dir: string): BlobStore {
  const pathOf = (key: string) => path.join(dir, key.slice(5, 7), key);
  const tmpDir = path.join(dir, "tmp");
  return {
    async put(source, { maxBytes }) {
      const key = newId("blob");
      await mkdir(tmpDir, { recursive: true });
      const partial = path.join(tmpDir, `${key}.part`);
      const hash = createHash("sha256");
      let size = 0;
      const file = await open(partial, "wx");
      try {
        for await (const chunk of source) {
          size += chunk.byteLength;
          if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
          hash.update(chunk);
          await file.write(chunk);
        }
        await file.sync();
      } catch (error) {
        await file.close();
        await rm(partial, { force: true });
        throw error;
      }
      await file.close();
      const target = pathOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(partial, target);
      return { key, size, sha256: hash.digest("hex") };
    },
    async read(key) {
      checkKey(key);
      try {
        return new Uint8Array(await readFile(pathOf(key)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async delete(key) {
      checkKey(key);
      await rm(pathOf(key), { force: true });
    },
    async sweep(olderThanMs) {
      let names: string[];
      try {
        names = await readdir(tmpDir);
      } catch {
        return;
      }
      const before = Date.now() - olderThanMs;
      for (const name of names) {
        const file = path.join(tmpDir, name);
        const info = await stat(file).catch(() => undefined);
        if (info && info.mtimeMs < before) await rm(file, { force: true });
      }
    },
  };
}

/** Bytes per BYTEA row: large enough that a file is few rows, small enough that one row is cheap to hold. */
export const POSTGRES_CHUNK_BYTES = 1024 * 1024;

/**
 * Blobs in the database: a `blobs` row and `blob_chunks` rows of at most POSTGRES_CHUNK_BYTES each. Chunks are
 * written as they arrive, outside a transaction, and the blob is marked complete at the end; an incomplete blob
 * is never read, and `sweep` removes the ones a dead process left.
 */
export function databaseBlobStore(db: Db, now: () => number = Date.now): BlobStore {
  async function remove(key: string): Promise<void> {
    await db.transaction(async (tx) => {
      await tx.execute("DELETE FROM blob_chunks WHERE blob_key = ?", [key]);
      await tx.execute("DELETE FROM blobs WHERE blob_key = ?", [key]);
    });
  }
  return {
    async put(source, { maxBytes }) {
      const key = newId("blob");
      await db.execute("INSERT INTO blobs (blob_key, size, complete, created_at) VALUES (?, 0, 0, ?)", [
        key,
        now(),
      ]);
      const hash = createHash("sha256");
      let size = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (pendingBytes === 0) return;
        const data = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        await db.execute("INSERT INTO blob_chunks (blob_key, seq, data) VALUES (?, ?, ?)", [
          key,
          seq++,
          data,
        ]);
      };
      try {
        for await (const chunk of source) {
          size += chunk.byteLength;
          if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
          hash.update(chunk);
          let rest = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          while (rest.byteLength > 0) {
            const room = POSTGRES_CHUNK_BYTES - pendingBytes;
            pending.push(rest.subarray(0, room));
            pendingBytes += Math.min(room, rest.byteLength);
            rest = rest.subarray(room);
            if (pendingBytes === POSTGRES_CHUNK_BYTES) await flush();
          }
        }
        await flush();
        await db.execute("UPDATE blobs SET size = ?, complete = 1 WHERE blob_key = ?", [size, key]);
      } catch (error) {
        await remove(key).catch(() => undefined);
        throw error;
      }
      return { key, size, sha256: hash.digest("hex") };
    },
    async read(key) {
      const [blob] = await db.query<{ size: number }>(
        "SELECT size FROM blobs WHERE blob_key = ? AND complete = 1",
        [key],
      );
      if (!blob) return undefined;
      const out = new Uint8Array(Number(blob.size));
      let offset = 0;
      for (let seq = 0; offset < out.byteLength; seq++) {
        const [row] = await db.query<{ data: Uint8Array }>(
          "SELECT data FROM blob_chunks WHERE blob_key = ? AND seq = ?",
          [key, seq],
        );
        if (!row) throw new Error(`blob ${key} is missing chunk ${seq}`);
        out.set(row.data, offset);
        offset += row.data.byteLength;
      }
      return out;
    },
    delete: remove,
    async sweep(olderThanMs) {
      const stale = await db.query<{ blob_key: string }>(
        "SELECT blob_key FROM blobs WHERE complete = 0 AND created_at < ?",
        [now() - olderThanMs],
      );
      for (const { blob_key } of stale) await remove(blob_key);
    },
  };
}

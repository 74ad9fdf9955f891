import { createHash, randomBytes } from "node:crypto";
import { API_KEY_PREFIX, type ApiKeyInfo, type KeyIntrospection, ServiceError } from "@svc/contract";
import type { Db } from "./db.ts";
import { newId, toRfc3339 } from "./ids.ts";

/** A key is the prefix and 32 random bytes in base64url (43 characters). */
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{43}$`);
/** How much of a key is kept in clear to tell keys apart: the prefix and 5 random characters (30 bits). */
const SHOWN_PREFIX_LENGTH = 16;
/** `last_used_at` is written at most this often per key, so authentication is not a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKeyRepository {
  /** Creates a key for the project; the key itself is returned here only. `PROJECT_NOT_FOUND` if none. */
  create(input: { projectId: string; name?: string | null }): Promise<{ info: ApiKeyInfo; key: string }>;
  /** Who a presented key is: null unless it is well formed, known and not deleted. */
  authenticate(key: string): Promise<KeyIntrospection | null>;
  /** Keys that are not deleted, oldest first; of one project when given. */
  list(projectId?: string): Promise<ApiKeyInfo[]>;
  /** Deletes a key: it never authenticates again. False when no such key, or already deleted. */
  delete(id: string): Promise<boolean>;
}

/**
 * SHA-256 in hex. Keys carry 256 random bits, so a fast unsalted hash is right: there is no dictionary to
 * guess from, and lookup by hash needs a deterministic one. (Passwords would need a slow, salted hash.)
 */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

interface ApiKeyRow {
  id: string;
  name: string | null;
  project_id: string;
  organization_id: string;
  prefix: string;
  created_at: number;
  last_used_at: number | null;
}

function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    project_id: row.project_id,
    organization_id: row.organization_id,
    prefix: row.prefix,
    created_at: toRfc3339(row.created_at),
    last_used_at: row.last_used_at === null ? null : toRfc3339(row.last_used_at),
  };
}

const INFO_COLUMNS =
  "k.id, k.name, k.project_id, p.organization_id, k.prefix, k.created_at, k.last_used_at FROM api_keys k JOIN projects p ON p.id = k.project_id";

export function createApiKeyRepository(db: Db, now: () => number = Date.now): ApiKeyRepository {
  return {
    async create({ projectId, name }) {
      const [project] = await db.query<{ organization_id: string }>(
        "SELECT organization_id FROM projects WHERE id = ?",
        [projectId],
      );
      if (!project) throw new ServiceError("PROJECT_NOT_FOUND", `No project ${projectId}`);
      const key = API_KEY_PREFIX + randomBytes(32).toString("base64url");
      const row: ApiKeyRow = {
        id: newId("key"),
        name: name ?? null,
        project_id: projectId,
        organization_id: project.organization_id,
        prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
        created_at: now(),
        last_used_at: null,
      };
      await db.execute(
        "INSERT INTO api_keys (id, project_id, name, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        [row.id, row.project_id, row.name, hashApiKey(key), row.prefix, row.created_at],
      );
      return { info: toInfo(row), key };
    },

    async authenticate(key) {
      if (typeof key !== "string" || !KEY_PATTERN.test(key)) return null;
      // The lookup is by hash, through the unique index: no comparison of secrets whose time could leak them.
      const [row] = await db.query<{
        id: string;
        project_id: string;
        organization_id: string;
        last_used_at: number | null;
      }>(
        `SELECT k.id, k.project_id, p.organization_id, k.last_used_at
         FROM api_keys k JOIN projects p ON p.id = k.project_id
         WHERE k.key_hash = ? AND k.deleted_at IS NULL`,
        [hashApiKey(key)],
      );
      if (!row) return null;
      const at = now();
      if (row.last_used_at === null || at - row.last_used_at >= LAST_USED_RESOLUTION_MS) {
        await db.execute(
          "UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)",
          [at, row.id, at - LAST_USED_RESOLUTION_MS],
        );
      }
      return { id: row.id, projectId: row.project_id, organizationId: row.organization_id };
    },

    async list(projectId) {
      const rows =
        projectId === undefined
          ? await db.query<ApiKeyRow>(
              `SELECT ${INFO_COLUMNS} WHERE k.deleted_at IS NULL ORDER BY k.created_at, k.id`,
            )
          : await db.query<ApiKeyRow>(
              `SELECT ${INFO_COLUMNS} WHERE k.project_id = ? AND k.deleted_at IS NULL ORDER BY k.created_at, k.id`,
              [projectId],
            );
      return rows.map(toInfo);
    },

    async delete(id) {
      const { rowCount } = await db.execute(
        "UPDATE api_keys SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
        [now(), id],
      );
      return rowCount > 0;
    },
  };
}

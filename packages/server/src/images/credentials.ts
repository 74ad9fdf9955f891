import type { RegistryCredential } from "@svc/contract";
import type { Db } from "../store/db.ts";
import type { SecretBox } from "./secret-box.ts";

/** A project's credentials for registry hosts; the password is sealed (secret-box.ts) before it is stored. */
export interface RegistryCredentialRepository {
  put(projectId: string, registry: string, username: string, password: string): Promise<RegistryCredential>;
  list(projectId: string): Promise<RegistryCredential[]>;
  /** False when there was none. */
  remove(projectId: string, registry: string): Promise<boolean>;
  /** The username and password a pull uses; undefined when the project has none for the host. */
  reveal(projectId: string, registry: string): Promise<{ username: string; password: string } | undefined>;
}

function toCredential(row: Record<string, unknown>): RegistryCredential {
  return {
    registry: String(row.registry),
    username: String(row.username),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

export function createRegistryCredentialRepository(db: Db, box: SecretBox): RegistryCredentialRepository {
  return {
    async put(projectId, registry, username, password) {
      const now = Date.now();
      const secret = box.seal(password);
      await db.transaction(async (tx) => {
        const updated = await tx.execute(
          "UPDATE registry_credentials SET username = ?, secret = ?, updated_at = ? WHERE project_id = ? AND registry = ?",
          [username, secret, now, projectId, registry],
        );
        if (updated.rowCount === 0) {
          await tx.execute(
            "INSERT INTO registry_credentials (project_id, registry, username, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            [projectId, registry, username, secret, now, now],
          );
        }
      });
      const [row] = await db.query(
        "SELECT registry, username, created_at, updated_at FROM registry_credentials WHERE project_id = ? AND registry = ?",
        [projectId, registry],
      );
      return toCredential(row);
    },
    async list(projectId) {
      const rows = await db.query(
        "SELECT registry, username, created_at, updated_at FROM registry_credentials WHERE project_id = ? ORDER BY registry",
        [projectId],
      );
      return rows.map(toCredential);
    },
    async remove(projectId, registry) {
      return (
        (
          await db.execute("DELETE FROM registry_credentials WHERE project_id = ? AND registry = ?", [
            projectId,
            registry,
          ])
        ).rowCount > 0
      );
    },
    async reveal(projectId, registry) {
      const [row] = await db.query<{ username: string; secret: string }>(
        "SELECT username, secret FROM registry_credentials WHERE project_id = ? AND registry = ?",
        [projectId, registry],
      );
      return row ? { username: String(row.username), password: box.open(String(row.secret)) } : undefined;
    },
  };
}

import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ADMIN_TOKEN_PREFIX } from "@svc/contract";
import { matchesHash, sha256Hex } from "./auth/bearer.ts";
import type { Config } from "./config.ts";
import type { Store } from "./store/store.ts";

export interface Bootstrap {
  /** The key created by this start (first start only): printed once and written to <data dir>/api-key. */
  createdApiKey: string | null;
  /** SHA-256 hex of the admin token, or null when this host cannot know it. */
  adminTokenHash: string | null;
  /** The admin token when this host knows it in plain text (config or its own file). */
  adminToken: string | null;
  notes: string[];
}

export const API_KEY_FILE = "api-key";
export const ADMIN_TOKEN_FILE = "admin-token";

async function readSecret(file: string): Promise<string | null> {
  try {
    return (await readFile(file, "utf8")).trim() || null;
  } catch {
    return null;
  }
}

/**
 * First start: organization `default`, project `default` and one API key, printed once and written to
 * <data dir>/api-key (0600) so the CLI on this machine works with no set-up. Every start: the admin token,
 * from the config, or from <data dir>/admin-token, or generated there; only its hash is stored.
 */
export async function bootstrap(store: Store, config: Config): Promise<Bootstrap> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const notes: string[] = [];
  const org = await store.projects.ensureOrganization("default");
  const project = (await store.projects.get("default")) ?? (await store.projects.create(org.id, "default"));

  let createdApiKey: string | null = null;
  if ((await store.settings.get("bootstrap_key_id")) === null) {
    const { info, key } = await store.apiKeys.create({ projectId: project.id, name: "bootstrap" });
    await store.settings.set("bootstrap_key_id", info.id);
    await writeFile(path.join(config.dataDir, API_KEY_FILE), `${key}\n`, { mode: 0o600 });
    createdApiKey = key;
  }

  const tokenFile = path.join(config.dataDir, ADMIN_TOKEN_FILE);
  let adminToken = config.adminToken;
  let adminTokenHash = await store.settings.get("admin_token_hash");
  if (adminToken) {
    adminTokenHash = sha256Hex(adminToken);
    await store.settings.set("admin_token_hash", adminTokenHash);
  } else if (adminTokenHash) {
    const local = await readSecret(tokenFile);
    if (local && matchesHash(local, adminTokenHash)) adminToken = local;
    else
      notes.push("the admin token was set on another host: set SVC_ADMIN_TOKEN to manage keys from this one");
  } else {
    adminToken = ADMIN_TOKEN_PREFIX + randomBytes(32).toString("base64url");
    adminTokenHash = sha256Hex(adminToken);
    await writeFile(tokenFile, `${adminToken}\n`, { mode: 0o600 });
    await store.settings.set("admin_token_hash", adminTokenHash);
  }
  return { createdApiKey, adminTokenHash, adminToken, notes };
}

import { createHmac, randomBytes } from "node:crypto";
import type { SettingsRepository } from "../store/settings.ts";

const SETTING = "sandbox_auth_master_secret";

/**
 * Per-sandbox forwarded-auth secrets are derived from one master secret kept in the store: every server of a
 * PostgreSQL deployment derives the same secret for a sandbox, and no per-sandbox secret is stored.
 */
export async function sandboxSecretDeriver(
  settings: SettingsRepository,
): Promise<(sandboxId: string) => string> {
  const master = await settings.getOrSet(SETTING, randomBytes(32).toString("base64url"));
  const key = Buffer.from(master, "base64url");
  return (sandboxId) => createHmac("sha256", key).update(`sandbox-auth:${sandboxId}`).digest("base64url");
}

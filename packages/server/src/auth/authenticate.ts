import type { Store } from "../store/store.ts";
import type { AuthContext } from "./context.ts";

/** The caller of a project API key, or null for an unknown or deleted key. */
export async function authenticateKey(store: Store, key: string): Promise<AuthContext | null> {
  const found = await store.apiKeys.authenticate(key);
  return found ? { keyId: found.id, projectId: found.projectId, organizationId: found.organizationId } : null;
}

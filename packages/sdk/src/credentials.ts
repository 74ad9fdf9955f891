import { readFileSync } from "node:fs";
import path from "node:path";

export const DEFAULT_API_URL = "http://localhost:8900";

function readLocal(file: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    const dir = env.SVC_DATA_DIR || "./.svc";
    return readFileSync(path.resolve(dir, file), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The API key: given, else SERVICE_API_KEY, else the local server's `<SVC_DATA_DIR or ./.svc>/api-key`. */
export function resolveApiKey(given?: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return given || env.SERVICE_API_KEY || readLocal("api-key", env);
}

/** The admin token: given, else SVC_ADMIN_TOKEN, else the local server's `admin-token` file. */
export function resolveAdminToken(given?: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return given || env.SVC_ADMIN_TOKEN || readLocal("admin-token", env);
}

/** The control API URL: given, else SVC_API_URL, else http://localhost:8900. */
export function resolveBaseUrl(given?: string, env: NodeJS.ProcessEnv = process.env): string {
  return (given || env.SVC_API_URL || DEFAULT_API_URL).replace(/\/+$/, "");
}

import { FORWARDED_AUTH_HEADER, FORWARDED_PROJECT_HEADER, signForwardedAuth } from "@svc/contract";
import type { SandboxRow } from "./repository.ts";

/** How the server reaches one running sandbox's daemon: its recorded address and forwarded-auth secret. */
export interface SandboxLink {
  row: SandboxRow;
  secret: string;
}

export function daemonUrl(link: SandboxLink): URL {
  if (!link.row.address) throw new Error(`the sandbox is ${link.row.status}`);
  return new URL(link.row.address);
}

/** The headers the daemon trusts: the forwarded-auth signature of this request, as the proxy signs it. */
export function signedHeaders(
  link: SandboxLink,
  method: string,
  pathAndQuery: string,
): Record<string, string> {
  return {
    [FORWARDED_AUTH_HEADER]: signForwardedAuth({
      secret: link.secret,
      sandboxId: link.row.id,
      method,
      pathAndQuery,
    }),
    [FORWARDED_PROJECT_HEADER]: link.row.projectId,
  };
}

/** A signed GET of a daemon route answering JSON; a non-2xx answer throws with the daemon's message. */
export async function daemonGet<T>(link: SandboxLink, pathAndQuery: string, timeoutMs = 30_000): Promise<T> {
  const response = await fetch(new URL(pathAndQuery, daemonUrl(link)), {
    headers: signedHeaders(link, "GET", pathAndQuery),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(`the sandbox's daemon answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

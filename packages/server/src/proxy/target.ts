import { MANAGEMENT_PORT } from "@svc/contract";

/** Which sandbox and port a proxied request is for. */
export interface ProxyTarget {
  /** Sandbox id or name, as the client wrote it. */
  sandbox: string;
  port: number;
}

/** Headers the public SDKs send to name the sandbox when the Host cannot (a localhost proxy). */
export const SANDBOX_ID_HEADERS = ["x-tensorlake-sandbox-id", "x-svc-sandbox-id"] as const;

const LABEL = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/**
 * The target of a request: the sandbox-id header when present (port from the Host's `<port>-` prefix if any),
 * else the Host: `<id-or-name>.<domain>`, `<port>-<id-or-name>.<domain>`, or `<id>.local`. Null when the
 * request names no sandbox.
 */
export function proxyTarget(
  host: string | undefined,
  headerValue: string | undefined,
  domain: string,
): ProxyTarget | null {
  const hostname = (host ?? "").toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
  const suffixes = [`.${domain.toLowerCase()}`, ".local"];
  let label: string | null = null;
  for (const suffix of suffixes) {
    if (hostname.endsWith(suffix)) {
      const head = hostname.slice(0, -suffix.length);
      if (!head.includes(".")) label = head;
      break;
    }
  }
  let port = MANAGEMENT_PORT;
  let sandbox: string | null = null;
  if (label) {
    const match = /^(\d{1,5})-(.+)$/.exec(label);
    if (match && Number(match[1]) >= 1 && Number(match[1]) <= 65535) {
      port = Number(match[1]);
      sandbox = match[2];
    } else sandbox = label;
  }
  const named = headerValue?.trim();
  if (named) sandbox = named;
  if (!sandbox || !LABEL.test(sandbox)) return null;
  return { sandbox, port };
}

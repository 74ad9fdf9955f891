import { MANAGEMENT_PORT } from "@svc/contract";

/** Which sandbox and port a proxied request is for, and the path to forward there. */
export interface ProxyTarget {
  /** Sandbox id or name, as the client wrote it. */
  sandbox: string;
  port: number;
  /** The request's path and query as the sandbox sees it: less the `/sandboxes/<id>` prefix of the path form. */
  path: string;
}

/** Headers the public SDKs send to name the sandbox when the Host cannot (a localhost proxy). */
export const SANDBOX_ID_HEADERS = ["x-tensorlake-sandbox-id", "x-svc-sandbox-id"] as const;

/** The path form of a sandbox URL: `/sandboxes/<id-or-name>` then the daemon's own path. */
export const SANDBOX_PATH_PREFIX = "/sandboxes/";

const LABEL = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const PATH_FORM = /^\/sandboxes\/([A-Za-z0-9][A-Za-z0-9_-]{0,99})(?=[/?]|$)(.*)$/s;

/**
 * The target of a request. The sandbox is named, first match wins, by:
 * - the path form `/sandboxes/<id-or-name>/...` (the daemon; the prefix is not forwarded): the sandbox URL of a
 *   local install, which any client reaches with no DNS set-up;
 * - the sandbox-id header (port from the Host's `<port>-` prefix if any);
 * - the Host: `<id-or-name>.<domain>`, `<port>-<id-or-name>.<domain>`, or `<id>.local`.
 * A Host naming a user port (`<port>-<id>.<domain>`) never takes the path form: that path is the user's.
 * Null when the request names no sandbox.
 */
export function proxyTarget(
  request: { host: string | undefined; sandboxHeader: string | undefined; url: string | undefined },
  domain: string,
): ProxyTarget | null {
  const hostname = (request.host ?? "").toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
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
  const url = request.url || "/";
  if (port === MANAGEMENT_PORT) {
    const pathForm = PATH_FORM.exec(url);
    if (pathForm) {
      const rest = pathForm[2];
      return { sandbox: pathForm[1], port, path: rest.startsWith("/") ? rest : `/${rest}` };
    }
  }
  const named = request.sandboxHeader?.trim();
  if (named) sandbox = named;
  if (!sandbox || !LABEL.test(sandbox)) return null;
  return { sandbox, port, path: url };
}

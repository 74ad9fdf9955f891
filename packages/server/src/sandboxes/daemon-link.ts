import http from "node:http";
import type net from "node:net";
import { FORWARDED_AUTH_HEADER, FORWARDED_PROJECT_HEADER, signForwardedAuth } from "@svc/contract";
import type { SandboxDialer } from "../hosts/sandbox-dialer.ts";
import type { SandboxRow } from "./repository.ts";

/** How the server reaches one running sandbox's daemon: its recorded address and forwarded-auth secret. */
export interface SandboxLink {
  row: SandboxRow;
  secret: string;
  /** A sandbox on another host: a stream to one of its ports, through that host's relay. */
  connect?: (port: number) => Promise<net.Socket>;
}

/** The link to a sandbox, through its executor host's relay when the dialer says it runs on another host. */
export function sandboxLink(row: SandboxRow, secret: string, dialer?: SandboxDialer): SandboxLink {
  return dialer?.isRemote(row)
    ? { row, secret, connect: (port) => dialer.connect(row, port) }
    : { row, secret };
}

/** The createConnection option of an http.request that goes through `link.connect` (no agent then). */
export function connectionThrough(
  connect: (port: number) => Promise<net.Socket>,
  port: number,
): Pick<http.RequestOptions, "createConnection"> {
  return {
    createConnection: (_options, done) => {
      connect(port).then(
        (socket) => done(null, socket),
        (error) => done(error, undefined as never),
      );
      return undefined;
    },
  };
}

/** One request to the daemon of a sandbox on another host, answered whole (small JSON answers only). */
export function daemonRequestThrough(
  link: SandboxLink & { connect: (port: number) => Promise<net.Socket> },
  request: {
    method: string;
    pathAndQuery: string;
    headers: Record<string, string>;
    body?: string;
    timeoutMs: number;
  },
): Promise<{ status: number; text: string }> {
  const base = daemonUrl(link);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: Number(base.port),
        method: request.method,
        path: request.pathAndQuery,
        headers: request.headers,
        timeout: request.timeoutMs,
        ...connectionThrough(link.connect, Number(base.port)),
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 502, text }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("the sandbox's daemon did not answer in time")));
    req.on("error", reject);
    req.end(request.body);
  });
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
  if (link.connect) {
    const { connect } = link;
    const answer = await daemonRequestThrough(
      { ...link, connect },
      { method: "GET", pathAndQuery, headers: signedHeaders(link, "GET", pathAndQuery), timeoutMs },
    );
    if (answer.status < 200 || answer.status >= 300)
      throw new Error(`the sandbox's daemon answered ${answer.status}: ${answer.text.slice(0, 500)}`);
    return JSON.parse(answer.text) as T;
  }
  const response = await fetch(new URL(pathAndQuery, daemonUrl(link)), {
    headers: signedHeaders(link, "GET", pathAndQuery),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(`the sandbox's daemon answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

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

/**
 * One signed request to a sandbox's daemon, its answer read as a stream (a process's run stream, a file's bytes)
 * or whole (`text()`): straight to its address on this host, or through the relay of the host it runs on.
 */
export interface DaemonAnswer {
  status: number;
  /** The body, unread. */
  body: http.IncomingMessage;
  /** The body read whole as text (for errors and small answers). */
  text(): Promise<string>;
  bytes(): Promise<Buffer>;
}

export function daemonStream(
  link: SandboxLink,
  request: {
    method: string;
    pathAndQuery: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    /** Ends the request when its socket is idle this long (none for streams that may be quiet). */
    idleTimeoutMs?: number;
  },
): Promise<DaemonAnswer> {
  const base = daemonUrl(link);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: Number(base.port),
        method: request.method,
        path: request.pathAndQuery,
        headers: {
          ...request.headers,
          ...signedHeaders(link, request.method, request.pathAndQuery),
          ...(request.body === undefined
            ? {}
            : { "content-length": String(Buffer.byteLength(request.body)) }),
        },
        ...(link.connect ? connectionThrough(link.connect, Number(base.port)) : {}),
      },
      (res) => {
        const bytes = async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of res) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks);
        };
        resolve({
          status: res.statusCode ?? 502,
          body: res,
          bytes,
          text: async () => (await bytes()).toString("utf8"),
        });
      },
    );
    req.on("error", reject);
    if (request.idleTimeoutMs) {
      req.setTimeout(request.idleTimeoutMs, () =>
        req.destroy(new Error("the sandbox's daemon did not answer in time")),
      );
    }
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
  const answer = await daemonStream(link, { method: "GET", pathAndQuery, idleTimeoutMs: timeoutMs });
  const text = await answer.text();
  if (answer.status < 200 || answer.status >= 300)
    throw new Error(`the sandbox's daemon answered ${answer.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

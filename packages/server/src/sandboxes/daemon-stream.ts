/**
 * # daemon-stream
 *
 * One signed request to a sandbox's daemon whose answer is read as a stream (a process's run stream, a file's
 * bytes): straight to its address on this host, or through the relay of the host it runs on.
 */
import http from "node:http";
import { connectionThrough, daemonUrl, type SandboxLink, signedHeaders } from "./daemon-link.ts";

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

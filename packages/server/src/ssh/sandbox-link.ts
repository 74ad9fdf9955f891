import net from "node:net";
import type { Duplex } from "node:stream";
import { type errorBody, runtimeRoutes, type SshStatus } from "@svc/contract";
import { type ClientOptions, createWebSocketStream, WebSocket } from "ws";
import {
  connectionThrough,
  daemonStream,
  daemonUrl,
  type SandboxLink,
  signedHeaders,
} from "../sandboxes/daemon-link.ts";

export type { SandboxLink };

/** `POST /api/v1/ssh/enable` on the sandbox's daemon, signed as the sandbox proxy signs. */
export async function enableSandboxSsh(
  link: SandboxLink,
  proxyPubkey: string,
  backendUser: string,
): Promise<SshStatus> {
  const path = runtimeRoutes.enableSsh.path;
  const headers = { "content-type": "application/json" };
  const body = JSON.stringify({ proxy_pubkey: proxyPubkey, backend_user: backendUser });
  const answer = await daemonStream(link, {
    method: "POST",
    pathAndQuery: path,
    headers,
    body,
    idleTimeoutMs: 30_000,
  });
  const response = {
    ok: answer.status >= 200 && answer.status < 300,
    status: answer.status,
    text: await answer.text(),
  };
  const { text } = response;
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as ReturnType<typeof errorBody>).message ?? text;
    } catch {
      // Not a JSON error body: keep the text.
    }
    throw new Error(`enabling SSH in the sandbox failed (${response.status}): ${message}`);
  }
  return JSON.parse(text) as SshStatus;
}

/**
 * A byte stream to `port` on the sandbox's loopback: the daemon's TCP tunnel WebSocket
 * (`/api/v1/tunnels/tcp?port=N`). A daemon without tunnels (404) is reached directly on the sandbox address.
 */
export function openSandboxPort(link: SandboxLink, port: number, timeoutMs = 15_000): Promise<Duplex> {
  const base = daemonUrl(link);
  const path = `${runtimeRoutes.openTcpTunnel.path}?port=${port}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${base.host}${path}`, {
      headers: signedHeaders(link, "GET", path),
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
      // A sandbox on another host: through its relay.
      ...(link.connect
        ? (connectionThrough(link.connect, Number(base.port)) as Pick<ClientOptions, "createConnection">)
        : {}),
    });
    ws.once("open", () => {
      ws.removeAllListeners("error");
      resolve(createWebSocketStream(ws));
    });
    ws.once("unexpected-response", (_request, response) => {
      response.resume();
      ws.terminate();
      if (response.statusCode !== 404) {
        reject(new Error(`the sandbox's TCP tunnel answered ${response.statusCode}`));
        return;
      }
      if (link.connect) {
        link.connect(port).then(resolve, reject);
        return;
      }
      const socket = net.connect({ host: base.hostname, port, timeout: timeoutMs });
      socket.once("connect", () => {
        socket.setTimeout(0);
        socket.removeAllListeners("error");
        resolve(socket);
      });
      socket.once("timeout", () => socket.destroy(new Error(`connecting to port ${port} timed out`)));
      socket.once("error", reject);
    });
    ws.once("error", reject);
  });
}

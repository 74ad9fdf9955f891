import net from "node:net";
import { runtimeRoutes } from "@svc/contract/runtime";
import type { UpgradeRouter } from "../upgrade.ts";
import { relayTunnel } from "./relay.ts";

/** How long connecting to the target port may take before the upgrade answers 502. */
const CONNECT_TIMEOUT_MS = 10_000;

/** A port query value: 1..65535, decimal digits only. */
export function parseTunnelPort(value: string | null): number | undefined {
  if (value === null || !/^\d{1,5}$/.test(value)) return undefined;
  const port = Number(value);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** Connects to 127.0.0.1:port; rejects with the socket error when nothing accepts. */
function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, allowHalfOpen: true });
    const timer = setTimeout(() => socket.destroy(new Error("connect timed out")), CONNECT_TIMEOUT_MS);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/**
 * `GET /api/v1/tunnels/tcp?port=N`: the TCP connection is opened before the handshake, so a port where nothing
 * listens answers 502 CONNECTION_FAILED instead of a WebSocket that closes at once.
 */
export function registerTunnelRoutes(upgrades: UpgradeRouter): void {
  upgrades.add(runtimeRoutes.openTcpTunnel, async ({ query, acceptRaw, reject }) => {
    const extra = [...query.keys()].find((key) => key !== "port");
    if (extra !== undefined) return reject("INVALID_REQUEST", `unknown query parameter "${extra}"`);
    const port = parseTunnelPort(query.get("port"));
    if (port === undefined) return reject("INVALID_PORT", "port must be an integer from 1 to 65535");
    let tcp: net.Socket;
    try {
      tcp = await connect(port);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      return reject("CONNECTION_FAILED", `nothing accepted the connection on 127.0.0.1:${port} (${reason})`);
    }
    let upgraded: Awaited<ReturnType<typeof acceptRaw>>;
    try {
      upgraded = await acceptRaw();
    } catch {
      tcp.destroy();
      return;
    }
    relayTunnel(upgraded.socket, upgraded.head, tcp);
  });
}
